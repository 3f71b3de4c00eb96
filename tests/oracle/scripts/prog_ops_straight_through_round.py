"""Quantisation-aware training with the straight-through estimator: round in the forward,
identity gradient in the backward (x + (round(x) - x).detach())."""

import torch
import torch.nn as nn

torch.manual_seed(12)


def fake_quant(w: torch.Tensor, scale: float) -> torch.Tensor:
    q = torch.round(w / scale).clamp(-8, 7) * scale
    return w + (q - w).detach()


layer = nn.Linear(4, 1)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
x = torch.randn(16, 4)
y = x @ torch.tensor([[0.5], [-0.25], [0.75], [0.0]])
for step in range(5):
    wq = fake_quant(layer.weight, 0.125)
    loss = ((x @ wq.T + layer.bias - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("quantised:", fake_quant(layer.weight, 0.125).detach().tolist())
print(type(torch.round(layer.weight).grad_fn).__name__, type(wq.grad_fn).__name__)
v = torch.tensor([0.5, 1.5, 2.5, -0.5, 1.2345], requires_grad=True)
r = torch.round(v, decimals=2)
print(r, type(r.grad_fn).__name__)
(v.floor() + v.ceil() + v.trunc() + v.sign() + v.frac()).sum().backward()
print("grad:", v.grad.tolist())
print(torch.tensor([-2.7, 2.7]).floor_(), torch.tensor([-2.5, 2.5]).round_())
