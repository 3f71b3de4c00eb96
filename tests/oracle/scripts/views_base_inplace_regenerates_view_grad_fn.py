# After the base is modified in place, an existing view's grad_fn is regenerated.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
v = y[:2]
print(type(v.grad_fn).__name__)
y.mul_(2)
print(type(v.grad_fn).__name__, v._version)
print(v)
v.sum().backward()
print(x.grad)
