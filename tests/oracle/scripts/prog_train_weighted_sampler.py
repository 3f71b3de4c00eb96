# An imbalanced dataset balanced with WeightedRandomSampler (weights = 1/class count): the
# class counts drawn per epoch, then a short training run.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

torch.manual_seed(0)
labels = torch.tensor([0] * 45 + [1] * 5)
X = torch.randn(50, 2) + labels.unsqueeze(1).float() * 2
counts = torch.stack([(labels == c).sum() for c in range(2)])
weights = 1.0 / counts[labels].float()
sampler = WeightedRandomSampler(weights, num_samples=len(labels), replacement=True)
loader = DataLoader(TensorDataset(X, labels), batch_size=10, sampler=sampler)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    seen = torch.zeros(2, dtype=torch.long)
    for xb, yb in loader:
        seen += torch.stack([(yb == c).sum() for c in range(2)])
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    print(epoch, seen.tolist(), f"{loss.item():.4f}")
