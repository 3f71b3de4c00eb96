# Linear probe on a frozen feature extractor: only the head trains
import torch
from torch import nn

torch.manual_seed(0)
backbone = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten()
)
head = nn.Linear(16, 3)
backbone.requires_grad_(False)
backbone.eval()
opt = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
images = torch.randn(12, 1, 8, 8)
labels = torch.tensor([0, 1, 2] * 4)
for step in range(5):
    with torch.no_grad():
        feats = backbone(images)
    loss = nn.functional.cross_entropy(head(feats), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.4f}")
print("backbone grad:", backbone[0].weight.grad, "feats grad_fn:", feats.grad_fn)
print("trainable:", sum(p.numel() for p in head.parameters() if p.requires_grad))
