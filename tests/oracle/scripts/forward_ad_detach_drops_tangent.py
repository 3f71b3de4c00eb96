# detach() drops the tangent; no_grad keeps it (forward AD ignores no_grad).
import torch
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
    d = x.detach()
    print(fwAD.unpack_dual(d).tangent)
    with torch.no_grad():
        y = x * 3
    print(fwAD.unpack_dual(y).tangent)
    z = x * 2 + x.detach() * 5
    print(fwAD.unpack_dual(z).tangent)
    print(fwAD.unpack_dual(x).tangent)
    print(fwAD.unpack_dual(torch.tensor([1.0])).tangent)
