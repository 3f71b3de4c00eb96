# JVP through a fixed-weight linear + tanh layer (directional derivative), rounded.
import torch
import torch.autograd.forward_ad as fwAD

W = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
b = torch.tensor([0.1, -0.2])
x0 = torch.tensor([1.0, 0.5])
v = torch.tensor([0.0, 1.0])
with fwAD.dual_level():
    x = fwAD.make_dual(x0, v)
    out = torch.tanh(W @ x + b)
    p, t = fwAD.unpack_dual(out)
print([round(a, 5) for a in p.tolist()])
print([round(a, 5) for a in t.tolist()])
