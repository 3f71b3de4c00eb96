# Item assignment into a non-leaf tensor; gradient through the written value.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = torch.tensor(5.0, requires_grad=True)
y = x.clone()
y[0] = s * 2
print(y)
print(type(y.grad_fn).__name__, y._version)
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x.grad, s.grad)
