# Keep the best model by validation loss in memory (torch.save to BytesIO), then reload it.
import io

import torch
import torch.nn as nn

torch.manual_seed(5)
X = torch.randn(80, 3)
y = X @ torch.tensor([[0.5], [-1.0], [2.0]]) + 0.3 * torch.randn(80, 1)
Xtr, ytr, Xva, yva = X[:60], y[:60], X[60:], y[60:]
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.3)
best, best_epoch, buffer = float("inf"), -1, io.BytesIO()
for epoch in range(15):
    opt.zero_grad()
    nn.functional.mse_loss(model(Xtr), ytr).backward()
    opt.step()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(Xva), yva).item()
    if val < best:
        best, best_epoch = val, epoch
        buffer.seek(0)
        buffer.truncate()
        torch.save(model.state_dict(), buffer)
print(f"best epoch {best_epoch} val {best:.4f}")
buffer.seek(0)
restored = nn.Linear(3, 1)
restored.load_state_dict(torch.load(buffer))
with torch.no_grad():
    print(f"restored val {nn.functional.mse_loss(restored(Xva), yva).item():.4f}")
print(restored.weight)
