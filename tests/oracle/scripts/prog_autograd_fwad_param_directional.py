"""Directional derivative of a loss along a parameter direction with forward AD (the
parameters become dual tensors), compared with the reverse-mode gradient dotted with the
same direction."""

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F

torch.manual_seed(1)
w = torch.randn(3, 2, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
x = torch.randn(6, 2)
y = torch.randn(6, 3)
dw = torch.randn(3, 2)
db = torch.randn(3)


def loss_fn(weight, bias):
    return F.mse_loss(torch.sigmoid(F.linear(x, weight, bias)), y)


with fwAD.dual_level():
    loss = loss_fn(fwAD.make_dual(w, dw), fwAD.make_dual(b, db))
    value, slope = fwAD.unpack_dual(loss)
print(f"loss {value.item():.5f}  directional derivative {slope.item():.5f}")

gw, gb = torch.autograd.grad(loss_fn(w, b), (w, b))
reverse = (gw * dw).sum() + (gb * db).sum()
print(f"reverse-mode <grad, v> {reverse.item():.5f}")
print("agree:", abs(reverse.item() - slope.item()) < 1e-5)
print("slope requires grad:", slope.requires_grad)

# curvature along the direction: d/dw of the slope, dotted with the direction
(hw,) = torch.autograd.grad(slope, w)
print(f"v^T H_w v approx {(hw * dw).sum().item():.4f}")
