# Counting iterations: len(loader) with and without drop_last, global step counters and a
# LambdaLR driven per iteration ("lr = base * 1/sqrt(step)").
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
ds = TensorDataset(torch.randn(37, 3), torch.randn(37, 1))
for drop_last in [False, True]:
    loader = DataLoader(ds, batch_size=8, shuffle=True, drop_last=drop_last)
    print(f"drop_last={drop_last}: {len(loader)} batches per epoch")
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1 / (step + 1) ** 0.5)
global_step = 0
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        global_step += 1
    print(
        f"epoch {epoch} step {global_step} lr {sched.get_last_lr()[0]:.4f} loss {loss.item():.4f}"
    )
