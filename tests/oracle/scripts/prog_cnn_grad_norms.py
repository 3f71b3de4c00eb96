# After one backward pass, print every layer's gradient norm (a common debugging printout).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(16, 5),
)
x = torch.randn(4, 3, 16, 16)
y = torch.tensor([0, 1, 2, 3])
loss = F.cross_entropy(model(x), y)
loss.backward()
print(f"loss {loss.item():.4f}")
for name, p in model.named_parameters():
    norm, abs_mean = p.grad.norm().item(), p.grad.abs().mean().item()
    print(f"{name:10s} grad norm {norm:.5f} abs mean {abs_mean:.6f}")
total = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
print(f"total grad norm {total.item():.5f}")
