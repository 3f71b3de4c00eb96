# Checkpoint mid-training to a temp file (model + optimizer + scheduler + epoch), then resume
# in fresh objects: the resumed run prints exactly the losses of the uninterrupted one.
import os
import tempfile

import torch
import torch.nn as nn

X = torch.linspace(0, 1, 32).unsqueeze(1)
Y = 3 * X**2 - X + 0.5


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    return model, opt, sched


def epoch(model, opt, sched):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    sched.step()
    return f"{loss.item():.6f}"


model, opt, sched = build()
first = [epoch(model, opt, sched) for _ in range(5)]
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "checkpoint.pth")
    torch.save(
        {
            "epoch": 5,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": opt.state_dict(),
            "scheduler": sched.state_dict(),
        },
        path,
    )
    uninterrupted = [epoch(model, opt, sched) for _ in range(5)]
    model2, opt2, sched2 = build()
    ckpt = torch.load(path)
    model2.load_state_dict(ckpt["model_state_dict"])
    opt2.load_state_dict(ckpt["optimizer_state_dict"])
    sched2.load_state_dict(ckpt["scheduler"])
    resumed = [epoch(model2, opt2, sched2) for _ in range(5)]
print(first)
print(uninterrupted)
print(resumed == uninterrupted, ckpt["epoch"], sched2.get_last_lr())
