# backward() on a scalar leaf gives it grad 1; expand of a leaf sums gradients back.
import torch

s = torch.tensor(4.0, requires_grad=True)
s.backward()
print(s.grad)
v = torch.tensor([1.0, 2.0], requires_grad=True)
e = v.expand(3, 2)
print(type(e.grad_fn).__name__, e.shape)
(e * torch.tensor([[1.0], [2.0], [3.0]])).sum().backward()
print(v.grad)
