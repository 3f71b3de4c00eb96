# Default dtypes of factory functions and literals.
import torch

print(torch.tensor([1.0]).dtype, torch.tensor([1]).dtype, torch.tensor([True]).dtype)
print(torch.tensor([1, 2.5]).dtype, torch.tensor(3).dtype, torch.tensor(3.0).dtype)
print(torch.zeros(2).dtype, torch.ones(2, dtype=torch.int64).dtype, torch.arange(3).dtype)
print(torch.arange(3.0).dtype, torch.arange(0, 1, 0.5).dtype, torch.full((2,), 7).dtype)
print(torch.empty(2).dtype, torch.get_default_dtype())
print(torch.FloatTensor([1]).dtype, torch.LongTensor([1]).dtype, torch.DoubleTensor([1]).dtype)
print(torch.tensor([1.0]).dtype.is_floating_point, torch.tensor([1]).is_floating_point())
