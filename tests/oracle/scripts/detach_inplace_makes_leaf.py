# detach_() on a non-leaf turns it into a leaf in place; the version counter is untouched.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
b.add_(1)
print(b._version, type(b.grad_fn).__name__, b.is_leaf)
r = b.detach_()
print(r is b)
print(b._version, b.grad_fn, b.is_leaf, b.requires_grad)
print(b)
c = b * a
c.sum().backward()
print(a.grad)
