# A retained non-leaf grad accumulates across backward passes like a leaf's.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
y.retain_grad()
z = (y * 3).sum()
z.backward(retain_graph=True)
print(y.grad, x.grad)
z.backward()
print(y.grad, x.grad)
