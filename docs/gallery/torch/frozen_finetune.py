# Fine-tuning on real PyTorch with a frozen backbone: its first conv is frozen with
# requires_grad_(False), its last conv was unfrozen to be tuned, but the features are
# computed under no_grad, so that conv gets no gradient either. The drawing shows the cut.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

backbone = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(),
)  # fmt: skip
backbone.requires_grad_(False)  # "pretrained": frozen
backbone[2].requires_grad_(True)  # ... except the last conv, which we meant to tune
head = nn.Linear(8, 5)
images = torch.randn(4, 3, 8, 8)
labels = torch.tensor([0, 4, 2, 1])

with torch.no_grad():
    features = backbone(images)  # the bug: no gradient reaches backbone[2] through here
logits = head(features)
loss = F.cross_entropy(logits, labels)
loss.backward()
print(f"loss {loss.item():.4f}; backbone[2].weight.grad is {backbone[2].weight.grad}")
