# sum/mean (full and over a dim), max and their gradients.
import torch

x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
x.sum(dim=0).sum().backward()
print(x.grad)
x.grad = None
x.mean().backward()
print(x.grad)
x.grad = None
x.mean(dim=1).sum().backward()
print(x.grad)
x.grad = None
x.max().backward()
print(x.grad)
print(x.sum(1), x.mean(0))
