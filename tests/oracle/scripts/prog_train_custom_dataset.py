# A custom Dataset class (computed samples, a transform), a DataLoader over it and a model
# trained to recover the formula.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class LineDataset(Dataset):
    """Samples (x, 3x - 1) on a grid; the transform scales the input."""

    def __init__(self, n, transform=None):
        self.x = torch.linspace(-1, 1, n)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        x = self.x[idx].unsqueeze(0)
        target = 3 * x - 1
        if self.transform:
            x = self.transform(x)
        return x, target


ds = LineDataset(50, transform=lambda t: t * 2)
print(len(ds), ds[0], ds[49])
torch.manual_seed(0)
loader = DataLoader(ds, batch_size=10, shuffle=True)
model = nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(8):
    for xb, yb in loader:
        opt.zero_grad()
        loss = ((model(xb) - yb) ** 2).mean()
        loss.backward()
        opt.step()
    print(epoch, f"{loss.item():.5f}")
print(f"weight {model.weight.item():.3f} bias {model.bias.item():.3f}")
