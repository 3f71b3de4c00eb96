# Exponential moving average of a model's weights, kept in a second model under no_grad.
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
ema = copy.deepcopy(model)
ema.requires_grad_(False)
decay = 0.9
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(20, 3)
y = (x[:, :1] - x[:, 1:2]) * 2
for step in range(10):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p_ema, p in zip(ema.parameters(), model.parameters()):
            p_ema.mul_(decay).add_(p, alpha=1 - decay)
    if step % 3 == 0:
        ema_loss = nn.functional.mse_loss(ema(x), y)
        print(f"step {step} model {loss.item():.4f} ema {ema_loss.item():.4f}")
diff = sum(
    (a - b).abs().sum() for a, b in zip(ema.state_dict().values(), model.state_dict().values())
)
print(f"param distance {diff.item():.4f}")
print(ema(x).requires_grad, all(not p.requires_grad for p in ema.parameters()))
