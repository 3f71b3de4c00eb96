# In-place on a non-leaf rebases its grad_fn; backward goes through both ops.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(type(y.grad_fn).__name__, y._version)
y.add_(3)
print(type(y.grad_fn).__name__, y._version)
y.mul_(torch.tensor([5.0, 7.0]))
print(type(y.grad_fn).__name__, y._version)
print(y)
y.sum().backward()
print(x.grad)
