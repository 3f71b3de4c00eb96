import torch
import torch.nn as nn
from torch.func import jacfwd

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
print(jacfwd(net)(torch.randn(3)))
print(jacfwd(lambda t: t.exp() * t)(torch.ones(3)))
