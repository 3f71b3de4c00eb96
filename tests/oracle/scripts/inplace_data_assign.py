# Assigning x.data = other swaps the values without autograd noticing.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
x.data = torch.tensor([10.0, 20.0])
print(x, x.requires_grad, x.is_leaf)
(x * x).sum().backward()
print(x.grad)
x.data.mul_(0.5)
print(x)
print(x._version)
