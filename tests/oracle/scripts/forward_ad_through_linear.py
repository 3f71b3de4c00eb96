# JVP through an nn.Linear with fixed weights: tangent = W @ v.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lin.bias.fill_(1.0)
with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([[1.0, 1.0]]), torch.tensor([[0.0, 1.0]]))
    out = lin(x)
    p, t = fwAD.unpack_dual(out)
    print(p.detach(), t.detach())
