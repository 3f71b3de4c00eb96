# Print the feature-map shape after every layer of a small VGG-style network.
import torch
import torch.nn as nn

torch.manual_seed(0)
features = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=3, padding=1),
    nn.BatchNorm2d(16),
    nn.ReLU(inplace=True),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 32, kernel_size=3, padding=1),
    nn.ReLU(inplace=True),
    nn.MaxPool2d(kernel_size=2, stride=2),
    nn.Conv2d(32, 64, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten(),
    nn.Linear(64, 10),
)
x = torch.randn(2, 3, 32, 32)
for i, layer in enumerate(features):
    x = layer(x)
    print(f"{i:2d} {layer.__class__.__name__:18s} {tuple(x.shape)}")
print(x.grad_fn.name())
