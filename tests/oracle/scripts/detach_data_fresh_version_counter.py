# .data shares storage but gets a fresh version counter of its own.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
r = a.data
print(a._version, r._version)
r.mul_(2)
print(a._version, r._version)
print(a)
print(r.requires_grad, r.is_leaf, r.grad_fn)
with torch.no_grad():
    a.add_(1)
print(a._version, r._version)
print(r)
