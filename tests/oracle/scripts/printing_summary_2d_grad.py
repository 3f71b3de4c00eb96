# 2-D summarisation along both dims, with suffixes placed after the last row.
import torch

a = torch.arange(4000.0).view(40, 100).requires_grad_()
print(a)
print(torch.arange(1100, dtype=torch.float64).view(1100, 1))
print(-torch.arange(3000).view(3, 1000))
