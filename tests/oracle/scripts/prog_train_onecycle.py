# OneCycleLR stepped per batch, as in fast.ai-style training: lr and momentum per step.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(96, 3)
y = X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
epochs = 4
sched = torch.optim.lr_scheduler.OneCycleLR(
    opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader)
)
for epoch in range(epochs):
    for i, (xb, yb) in enumerate(loader):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        print(f"{epoch}.{i} loss {loss.item():.4f} lr {g['lr']:.5f} momentum {g['momentum']:.4f}")
