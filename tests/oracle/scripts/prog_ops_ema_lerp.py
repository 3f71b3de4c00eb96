"""A target network kept as an exponential moving average of the online one, updated with
lerp_ under no_grad, as in DQN/BYOL training loops."""

import copy

import torch
import torch.nn as nn

torch.manual_seed(10)
online = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
target = copy.deepcopy(online)
for p in target.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(online.parameters(), lr=0.1)
tau = 0.25

for step in range(4):
    x = torch.randn(8, 3)
    with torch.no_grad():
        y_target = target(x)
    loss = ((online(x) - (y_target + 1.0)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for tp, op in zip(target.parameters(), online.parameters()):
            tp.lerp_(op, tau)
    gap = sum((tp - op).abs().sum() for tp, op in zip(target.parameters(), online.parameters()))
    print(f"step {step} loss {loss.item():.4f} gap {gap.item():.4f}")

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 6.0], requires_grad=True)
w = torch.tensor([0.25, 0.75], requires_grad=True)
mixed = torch.lerp(a, b, w)
mixed.sum().backward()
print(mixed.tolist(), type(mixed.grad_fn).__name__)
print("grads:", a.grad.tolist(), b.grad.tolist(), w.grad.tolist())
print(torch.lerp(a, b, 0.5), type(torch.lerp(a, b, 0.5).grad_fn).__name__)
