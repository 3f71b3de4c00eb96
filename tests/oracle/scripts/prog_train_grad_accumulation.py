# Gradient accumulation: four micro-batches per optimizer step, loss divided by the number
# of accumulation steps; the step count and final loss.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(64, 5)
y = X[:, :1] * 2 - X[:, 1:2] + 0.1
loader = DataLoader(TensorDataset(X, y), batch_size=4, shuffle=True)
model = nn.Linear(5, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
accum = 4
steps = 0
for epoch in range(3):
    opt.zero_grad()
    for i, (xb, yb) in enumerate(loader):
        loss = nn.functional.mse_loss(model(xb), yb) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
            steps += 1
    with torch.no_grad():
        full = nn.functional.mse_loss(model(X), y).item()
    print(f"epoch {epoch} steps {steps} full-batch loss {full:.4f}")
print(opt.state[model.weight]["step"])
