# Parameter reprs: float64, 0-d and after an in-place update under no_grad.
import torch
import torch.nn as nn

p = nn.Parameter(torch.tensor([1.0, 2.0], dtype=torch.float64))
print(p)
s = nn.Parameter(torch.tensor(3.0))
print(s)
with torch.no_grad():
    s.mul_(2)
print(s, s._version)
print(repr(p.data), p.detach())
