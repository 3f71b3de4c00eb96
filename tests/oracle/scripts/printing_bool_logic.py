# Comparison and logical ops print bool tensors; any/all and masking.
import torch

x = torch.tensor([[1.0, -2.0], [0.0, 4.0]])
m = x > 0
print(m)
print(m & (x < 3), m | (x == 0), ~m)
print(m.any(), m.all(), m.sum())
print(x[m])
print(x.masked_fill(m, 0.0))
print(torch.tensor([1, 2]) == torch.tensor([1, 3]))
