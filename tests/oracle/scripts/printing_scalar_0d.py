# 0-d tensors of several dtypes and values.
import torch

print(torch.tensor(3.0))
print(torch.tensor(0.5))
print(torch.tensor(-2.25))
print(torch.tensor(7))
print(torch.tensor(True))
print(torch.tensor(1.5, dtype=torch.float64))
print(torch.tensor(1e-8))
print(torch.tensor(123456789.0))
print(torch.tensor(2.0, requires_grad=True))
print(torch.tensor(3.0).shape, torch.tensor(3.0).dim())
