# One-hot targets from class indices, used with a conv net and an MSE loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
labels = torch.tensor([2, 0, 1, 2])
targets = F.one_hot(labels, num_classes=4).float()
print(targets)
print(F.one_hot(torch.tensor([[0, 1], [3, 2]])))
net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Softmax(dim=1))
opt = torch.optim.SGD(net.parameters(), lr=0.5)
x = torch.randn(4, 1, 6, 6)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(net(x), targets)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
try:
    F.one_hot(torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.one_hot(torch.tensor([3]), 3)
except RuntimeError as e:
    print("RuntimeError:", e)
