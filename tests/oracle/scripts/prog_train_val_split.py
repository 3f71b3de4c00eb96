# Train/validation split with random_split, evaluation under no_grad each epoch, accuracy.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(7)
X = torch.randn(120, 4)
y = (X[:, 0] * X[:, 1] > 0).long()
full = TensorDataset(X, y)
train_ds, val_ds = random_split(full, [0.8, 0.2])
print(len(train_ds), len(val_ds), val_ds.indices[:5])
train_dl = DataLoader(train_ds, batch_size=16, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=32)

model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(6):
    model.train()
    for xb, yb in train_dl:
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
    model.eval()
    correct, total, val_loss = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            val_loss += loss_fn(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
    print(f"epoch {epoch}: val loss {val_loss / total:.4f}, val acc {100 * correct / total:.1f}%")
