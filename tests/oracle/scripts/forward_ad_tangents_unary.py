# Forward-mode tangents of sin/cos/exp/tanh/log at fixed points (rounded).
import torch
import torch.autograd.forward_ad as fwAD

primal = torch.tensor([0.5, 1.0, 2.0])
tangent = torch.tensor([1.0, 2.0, -1.0])
with fwAD.dual_level():
    x = fwAD.make_dual(primal, tangent)
    for name in ["sin", "cos", "exp", "tanh", "log", "sigmoid"]:
        out = getattr(torch, name)(x)
        p, t = fwAD.unpack_dual(out)
        print(name, [round(v, 5) for v in p.tolist()], [round(v, 5) for v in t.tolist()])
