# Gradient clipping in a deep-ish MLP with a large learning rate: the norm before clipping
# is printed each step, and clipping keeps the loss from blowing up.
import torch
import torch.nn as nn

torch.manual_seed(3)
X = torch.randn(64, 10)
y = (X[:, :3].sum(dim=1, keepdim=True) > 0).float()
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
loss_fn = nn.BCEWithLogitsLoss()
for step in range(10):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad norm {norm.item():.4f}")
