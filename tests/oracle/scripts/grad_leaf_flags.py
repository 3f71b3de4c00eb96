# is_leaf / requires_grad / grad_fn for leaves, non-leaves and plain tensors.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])
c = a + b
d = b * 2
e = c.sum()
for name, t in [("a", a), ("b", b), ("c", c), ("d", d), ("e", e)]:
    fn = None if t.grad_fn is None else t.grad_fn.name()
    print(name, t.is_leaf, t.requires_grad, fn)
