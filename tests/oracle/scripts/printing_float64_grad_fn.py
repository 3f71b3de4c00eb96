# float64 results combine the dtype and grad_fn suffixes; wrapped when long.
import torch

a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
print(a * 2)
print((a * 2).sum())
print(torch.arange(12, dtype=torch.float64, requires_grad=True) * 1.5)
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.int32) * 2)
