# make_dual's primal aliases the input tensor; unpack_dual's primal is a view of the dual.
import torch
import torch.autograd.forward_ad as fwAD

p = torch.tensor([1.0, 2.0])
with fwAD.dual_level():
    x = fwAD.make_dual(p, torch.tensor([0.5, 0.5]))
    same = x.untyped_storage().data_ptr() == p.untyped_storage().data_ptr()
    print(same, x.requires_grad, x is p)
    u = fwAD.unpack_dual(x)
    print(u.primal, u.tangent)
    print(fwAD.unpack_dual(x * 2).tangent, fwAD.unpack_dual(x.exp()).primal)
