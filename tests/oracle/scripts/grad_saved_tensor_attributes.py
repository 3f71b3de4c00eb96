# grad_fn._saved_* attributes (what torchviz's show_attrs/saved reads).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
print(torch.equal(y.grad_fn._saved_self, x), torch.equal(y.grad_fn._saved_other, w))
p = x**3
print(p.grad_fn._saved_exponent, torch.equal(p.grad_fn._saved_self, x))
e = x.exp()
print(torch.equal(e.grad_fn._saved_result, e))
