# After the dual level exits the tangent is gone; unpack_dual returns a namedtuple.
import torch
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([2.0]), torch.tensor([3.0]))
    y = x * x
    u = fwAD.unpack_dual(y)
    print(type(u).__name__, u.primal, u.tangent)
    print(u._fields)
    primal, tangent = u
    print(primal, tangent)
print(fwAD.unpack_dual(y).tangent)
print(fwAD.unpack_dual(y).primal)
