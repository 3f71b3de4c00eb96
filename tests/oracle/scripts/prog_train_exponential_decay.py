# ExponentialLR decaying each epoch on a two-layer regression; the lr schedule is printed
# with the loss, as a tutorial's training log does.
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.rand(50, 1) * 4 - 2
y = X**2 + 0.05 * torch.randn(50, 1)
model = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.8)
for epoch in range(8):
    for _ in range(10):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        optimizer.step()
    print(f"Epoch {epoch}: lr={scheduler.get_last_lr()[0]:.5f} loss={loss.item():.4f}")
    scheduler.step()
