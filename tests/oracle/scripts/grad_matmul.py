# Matrix multiply gradients (mm, matmul of a vector, bias add).
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
w = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]], requires_grad=True)
b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y = x @ w + b
print(y)
y.sum().backward()
print(x.grad)
print(w.grad)
print(b.grad)
v = torch.tensor([1.0, 2.0], requires_grad=True)
(w.t() @ v).sum().backward()
print(v.grad)
