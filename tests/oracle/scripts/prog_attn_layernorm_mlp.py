"""Residual MLP blocks with LayerNorm (pre-norm) on a regression task, SGD with momentum."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class ResBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


model = nn.Sequential(nn.Linear(2, 8), ResBlock(8), ResBlock(8), nn.LayerNorm(8), nn.Linear(8, 1))
x = torch.randn(64, 2)
y = (x[:, :1] * x[:, 1:]).sin()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(30):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.5f}")
print(model)
print(f"{model[1].norm.weight.grad.abs().sum().item():.4f}")
