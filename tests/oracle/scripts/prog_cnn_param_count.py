# Count a CNN's trainable parameters per layer and in total.
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(1, 32, 3),
    nn.BatchNorm2d(32),
    nn.ReLU(),
    nn.Conv2d(32, 64, 3, bias=False),
    nn.MaxPool2d(2),
    nn.Conv2d(64, 64, 3, groups=64),
    nn.Conv2d(64, 128, 1),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(128, 10),
)
total = 0
for name, p in model.named_parameters():
    print(f"{name:12s} {str(tuple(p.shape)):20s} {p.numel()}")
    total += p.numel()
print("total trainable:", total)
print("buffers:", [n for n, _ in model.named_buffers()])
print("sum via generator:", sum(p.numel() for p in model.parameters() if p.requires_grad))
