# Linear regression the tutorial way: synthetic data, TensorDataset, shuffled DataLoader,
# SGD with momentum and a StepLR schedule; per-epoch mean loss and the learned weights.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)
true_w = torch.tensor([[2.0, -3.4]])
true_b = 4.2
X = torch.randn(200, 2)
y = X @ true_w.T + true_b + 0.01 * torch.randn(200, 1)

loader = DataLoader(TensorDataset(X, y), batch_size=20, shuffle=True)
model = nn.Linear(2, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for epoch in range(6):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    scheduler.step()
    print(f"epoch {epoch + 1}, loss {total / len(X):.4f}, lr {scheduler.get_last_lr()[0]:.4f}")

w = model.weight.data.flatten().tolist()
print(f"w = [{w[0]:.3f}, {w[1]:.3f}], b = {model.bias.item():.3f}")
