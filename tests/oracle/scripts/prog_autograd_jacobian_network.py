# The input-output Jacobian of a small MLP: how each output reacts to each input feature.
import torch
import torch.nn as nn
from torch.autograd.functional import jacobian

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
x = torch.randn(4)
J = jacobian(net, x)
print("jacobian shape:", tuple(J.shape))
for i, row in enumerate(J):
    print(f"d out{i}/d x:", " ".join(f"{v:+.4f}" for v in row.tolist()))
# compare a column with a finite difference
eps = 1e-3
e0 = torch.zeros(4)
e0[0] = eps
fd = (net(x + e0) - net(x - e0)) / (2 * eps)
print("fd column 0 close:", torch.allclose(fd, J[:, 0], atol=1e-3))
# batched: jacobian of the batch-summed output gives per-sample Jacobians
xb = torch.randn(3, 4)
Jb = jacobian(lambda inp: net(inp).sum(0), xb)
print("batched shape:", tuple(Jb.shape))
print("sample 1 matches:", torch.allclose(Jb[:, 1], jacobian(net, xb[1]), atol=1e-6))
