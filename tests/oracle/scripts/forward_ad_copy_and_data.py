# copy_ carries the source's tangent into the destination; .data has no tangent.
import torch
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    dst = torch.zeros(2)
    dst.copy_(x * 2)
    print(fwAD.unpack_dual(dst).tangent)
    plain = torch.zeros(2)
    dst.copy_(plain)
    print(fwAD.unpack_dual(dst).tangent)
    print(fwAD.unpack_dual(x.data).tangent)
