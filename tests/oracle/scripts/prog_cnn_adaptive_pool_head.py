# AdaptiveAvgPool2d lets one classifier head take images of any size.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Conv2d(3, 6, 3), nn.ReLU(), nn.Conv2d(6, 12, 3, stride=2))
head = nn.Sequential(nn.AdaptiveAvgPool2d((2, 2)), nn.Flatten(), nn.Linear(48, 4))
for size in (9, 16, 23, 40):
    x = torch.randn(1, 3, size, size)
    feats = backbone(x)
    logits = head(feats)
    print(size, tuple(feats.shape), tuple(logits.shape), f"{logits.sum().item():.4f}")
pool = nn.AdaptiveAvgPool2d(1)
y = pool(feats)
print(type(y.grad_fn).__name__, tuple(y.shape))
m = nn.AdaptiveMaxPool2d((3, None))
print(tuple(m(feats).shape), type(m(feats).grad_fn).__name__)
z = nn.AdaptiveAvgPool2d((5, 7))(torch.arange(70.0).reshape(1, 1, 7, 10))
print(z)
