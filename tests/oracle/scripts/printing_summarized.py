# Tensors over 1000 elements are summarised with "..." (threshold and edgeitems 3).
import torch

print(torch.arange(1001.0))
print(torch.arange(1000.0).view(10, 100).shape)
print(torch.arange(2000).view(40, 50))
r = repr(torch.arange(1000))
print(len(r.splitlines()), "..." in r, r.splitlines()[-1])
print(torch.ones(2, 600))
print(torch.arange(1200.0).view(4, 3, 100))
