"""topk picks among equal values the way torch's CPU kernel does (not the first ones)."""

import torch

x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 0.5, 4.0], [1.0, 1.0, 1.0, 1.0]])
print(torch.topk(x, 2))
print(x.topk(3, dim=1, largest=False))
print(x.topk(2, dim=0, sorted=False).indices)
print(torch.sort(x, dim=1, descending=True, stable=True).indices)
print(x.argsort(dim=1, stable=True))
