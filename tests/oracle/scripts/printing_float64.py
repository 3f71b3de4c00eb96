# float64 tensors carry a dtype= suffix; precision is still 4 decimals.
import torch

a = torch.tensor([1.0, 2.0], dtype=torch.float64)
print(a)
print(torch.tensor([0.1, 0.2], dtype=torch.float64))
print(torch.tensor([[1.0 / 3.0]], dtype=torch.double, requires_grad=True))
b = a * 2
print(b)
print(torch.tensor(1.0, dtype=torch.float64))
