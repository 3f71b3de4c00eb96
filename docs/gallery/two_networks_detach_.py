# The in-place variant: y.detach_() turns A's output itself into a leaf, so y loses its
# history for good: nothing can backpropagate into A through y afterwards.
import torch
from torch import nn

torch.manual_seed(0)
A = nn.Linear(3, 2)
B = nn.Linear(2, 1)
x = torch.ones(1, 3)

y = A(x)
y.detach_()
z = B(y)
z.backward()
