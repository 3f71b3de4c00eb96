# 4-D tensors print nested blocks separated by blank lines.
import torch

print(torch.arange(16.0).view(2, 2, 2, 2))
print(torch.zeros(1, 1, 1, 2, dtype=torch.int64))
