# Nothing here requires grad, so `detachviz grad` has no root to call backward() on.
import torch

x = torch.ones(3)
y = (x * 2).sum()
print(y)
