# Broadcast against a (1, 3) and a (2, 1, 1) operand; result shape and grads.
import torch

a = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
b = torch.tensor([[[1.0]], [[-1.0]]], requires_grad=True)
out = a * b
print(out.shape)
out.sum().backward()
print(a.grad)
print(b.grad)
m = a.mean(dim=1, keepdim=True)
print(m, m.shape)
