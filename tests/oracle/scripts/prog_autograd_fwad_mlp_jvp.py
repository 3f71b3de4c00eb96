"""Forward-mode JVP through a small MLP: the directional derivative of the output along an
input direction, checked against a finite difference, then differentiated w.r.t. the
weights (the tangent has history because the parameters require grad)."""

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.randn(5, 4)
direction = torch.randn(5, 4)

with fwAD.dual_level():
    dual_x = fwAD.make_dual(x, direction)
    out = model(dual_x)
    primal, tangent = fwAD.unpack_dual(out)

print("output", primal.squeeze(1))
print("jvp   ", tangent.squeeze(1))
print("tangent grad_fn:", type(tangent.grad_fn).__name__)

eps = 1e-3
with torch.no_grad():
    fd = (model(x + eps * direction) - model(x - eps * direction)) / (2 * eps)
print("max |jvp - fd| < 1e-3:", (tangent - fd).abs().max().item() < 1e-3)

# the JVP's sensitivity to the first layer's weights
sensitivity = tangent.pow(2).sum()
sensitivity.backward()
print(f"sensitivity {sensitivity.item():.4f}")
print(f"|grad W0| {model[0].weight.grad.norm().item():.4f}")
print(f"|grad W2| {model[2].weight.grad.norm().item():.4f}")
