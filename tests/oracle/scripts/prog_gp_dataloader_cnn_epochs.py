# Small CNN trained for two epochs from a shuffled DataLoader, then evaluated
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
xs = torch.randn(40, 1, 6, 6)
ys = (xs.mean(dim=(1, 2, 3)) > 0).long()
loader = DataLoader(TensorDataset(xs, ys), batch_size=8, shuffle=True)
net = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(12, 2))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for epoch in range(2):
    total = 0.0
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    print(f"epoch {epoch}: mean loss {total / len(xs):.4f} first batch labels {yb.tolist()}")
net.eval()
with torch.no_grad():
    acc = (net(xs).argmax(1) == ys).float().mean()
print(f"accuracy {acc.item():.3f}")
