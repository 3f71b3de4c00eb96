# RNG-independent facts: initial_seed echoes manual_seed; Linear init stays in its bound.
import math

import torch
import torch.nn as nn

torch.manual_seed(42)
print(torch.initial_seed())
lin = nn.Linear(16, 4)
bound = 1 / math.sqrt(16)
print(bool((lin.weight.abs() <= bound).all()), bool((lin.bias.abs() <= bound).all()))
p = torch.randperm(6)
print(sorted(p.tolist()), p.dtype)
print(torch.rand(1000).min().item() >= 0.0, torch.rand(1000).max().item() < 1.0)
