# Linear warm-up then cosine decay with SequentialLR, the transformer-style schedule.
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
warmup = LinearLR(opt, start_factor=0.1, total_iters=3)
cosine = CosineAnnealingLR(opt, T_max=9, eta_min=1e-4)
sched = SequentialLR(opt, schedulers=[warmup, cosine], milestones=[3])
X = torch.randn(32, 4)
y = X.sum(dim=1, keepdim=True)
for step in range(12):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    print(f"step {step:2d} loss {loss.item():.4f} next lr {sched.get_last_lr()[0]:.6f}")
