# 0-d tensors and Python scalars do not upgrade a dimensioned tensor within its category.
import torch

f = torch.tensor([1.0, 2.0])
i = torch.tensor([1, 2], dtype=torch.int32)
print((f * torch.tensor(2.0, dtype=torch.float64)).dtype)
print((i + torch.tensor(1)).dtype, (i + torch.tensor(1.5)).dtype)
print((i * 2).dtype, (i * 2.0).dtype)
print((torch.tensor(1.0, dtype=torch.float64) * torch.tensor(2.0)).dtype)
print((f + torch.tensor([1.0], dtype=torch.float64)).dtype)
print((torch.tensor(3) * 1.5).dtype, torch.tensor(3) * 1.5)
