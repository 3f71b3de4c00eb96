# Mixup: cross-entropy with probability (soft) targets from mixed one-hot labels.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.2)
x = torch.randn(16, 4)
labels = torch.randint(0, 3, (16,))
for step in range(5):
    lam = 0.7
    perm = torch.randperm(16)
    mixed = lam * x + (1 - lam) * x[perm]
    soft = lam * torch.eye(3)[labels] + (1 - lam) * torch.eye(3)[labels[perm]]
    loss = F.cross_entropy(model(mixed), soft)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
hard = F.cross_entropy(model(x), labels)
onehot = F.cross_entropy(model(x), torch.eye(3)[labels])
print(f"hard {hard.item():.4f} one-hot soft {onehot.item():.4f}")
smooth = F.cross_entropy(model(x), soft[:16], label_smoothing=0.1)
print(f"smoothed soft {smooth.item():.4f}", type(smooth.grad_fn).__name__)
