"""Saving a training checkpoint (model + optimizer state dicts, epoch, loss), loading it
into fresh objects and resuming: the resumed run continues exactly like the original."""

import io

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(16, 4)
y = x.sum(1, keepdim=True)


def make():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    return model, torch.optim.Adam(model.parameters(), lr=0.01)


def train(model, opt, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    return loss.item()


model, opt = make()
print(f"first run {train(model, opt, 5):.5f}")
buf = io.BytesIO()
torch.save({"epoch": 5, "model": model.state_dict(), "optim": opt.state_dict()}, buf)
print(f"continued {train(model, opt, 5):.5f}")

buf.seek(0)
ckpt = torch.load(buf)
model2, opt2 = make()
model2.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["optim"])
print("epoch", ckpt["epoch"], "state keys", sorted(ckpt["optim"]["state"][0]))
print(f"resumed   {train(model2, opt2, 5):.5f}")
print("step count", opt2.state_dict()["state"][0]["step"])
