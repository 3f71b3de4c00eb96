"""The dot-product test between forward and reverse mode: <u, J v> from forward AD equals
<J^T u, v> from backward, for a two-layer network with a softmax output."""

import torch
import torch.autograd.forward_ad as fwAD

torch.manual_seed(0)
w1 = torch.randn(6, 4)
w2 = torch.randn(3, 6)


def net(x):
    return torch.softmax(w2 @ torch.tanh(w1 @ x), dim=0)


x = torch.randn(4)
v = torch.randn(4)
u = torch.randn(3)

with fwAD.dual_level():
    jv = fwAD.unpack_dual(net(fwAD.make_dual(x, v))).tangent
xr = x.clone().requires_grad_(True)
(jtu,) = torch.autograd.grad(net(xr), xr, grad_outputs=u)
lhs = (u * jv).sum().item()
rhs = (jtu * v).sum().item()
print(f"<u, Jv> = {lhs:.5f}")
print(f"<J^T u, v> = {rhs:.5f}")
print("match:", abs(lhs - rhs) < 1e-5)
print("tangent has history:", jv.requires_grad)
