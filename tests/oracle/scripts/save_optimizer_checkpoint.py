# A checkpoint with model, optimizer and epoch: resuming gives identical next steps.
import io

import torch
import torch.nn as nn


def make():
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    return model, torch.optim.Adam(model.parameters(), lr=0.1)


x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
y = torch.tensor([[1.0], [0.0], [2.0]])
model, opt = make()
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
buf = io.BytesIO()
torch.save({"epoch": 3, "model": model.state_dict(), "opt": opt.state_dict()}, buf)
buf.seek(0)
ckpt = torch.load(buf)
model2, opt2 = make()
model2.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["opt"])
print(ckpt["epoch"], ckpt["opt"]["state"][0]["step"], opt2.state[model2.weight]["step"])
for m, o in [(model, opt), (model2, opt2)]:
    losses = []
    for _ in range(3):
        o.zero_grad()
        loss = nn.functional.mse_loss(m(x), y)
        loss.backward()
        o.step()
        losses.append(f"{loss.item():.6f}")
    print(losses)
