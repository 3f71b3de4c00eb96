# A dual tensor built from a requires_grad leaf still supports reverse mode.
import torch
import torch.autograd.forward_ad as fwAD

p = torch.tensor([1.0, 2.0], requires_grad=True)
with fwAD.dual_level():
    x = fwAD.make_dual(p, torch.tensor([1.0, -1.0]))
    y = (x**2).sum()
    t = fwAD.unpack_dual(y).tangent
    print(t.item(), t.shape)
    print(y.requires_grad)
y.backward()
print(p.grad)
