# y = A(x), z = B(y): train B only. B(y.detach()) cuts the graph at A's output, so A's
# parameters get no gradient while y itself keeps its history (A could still be trained).
import torch
from torch import nn

torch.manual_seed(0)
A = nn.Linear(3, 2)
B = nn.Linear(2, 1)
x = torch.ones(1, 3)

y = A(x)
z = B(y.detach())
z.backward()
