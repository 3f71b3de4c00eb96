# Random Fourier features: fit a noisy 1-D signal with sin/cos of random projections.
import math

import torch

torch.manual_seed(0)
x = torch.linspace(0, 2 * math.pi, 256).unsqueeze(1)
y = torch.sin(3 * x) + 0.5 * torch.cos(5 * x) + 0.05 * torch.randn(256, 1)
freqs = torch.randn(1, 32) * 4
phase = torch.rand(32) * 2 * math.pi
feats = torch.cat([torch.sin(x @ freqs + phase), torch.cos(x @ freqs + phase)], dim=1)
w = torch.zeros(64, 1, requires_grad=True)
opt = torch.optim.Adam([w], lr=0.05)
for it in range(200):
    opt.zero_grad()
    loss = ((feats @ w - y) ** 2).mean()
    loss.backward()
    opt.step()
    if it % 40 == 0:
        print(f"iter {it:3d} mse {loss.item():.5f}")
print("final mse", f"{loss.item():.5f}", "w norm", f"{w.norm().item():.4f}")
