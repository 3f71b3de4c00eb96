# A depthwise-separable convolution (MobileNet style) against a full convolution.
import torch
import torch.nn as nn


def count(m):
    return sum(p.numel() for p in m.parameters())


torch.manual_seed(0)
full = nn.Conv2d(16, 32, 3, padding=1)
separable = nn.Sequential(
    nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False),
    nn.BatchNorm2d(16),
    nn.ReLU6(),
    nn.Conv2d(16, 32, 1),
)
print("full params:", count(full), "separable params:", count(separable))
x = torch.randn(2, 16, 8, 8, requires_grad=True)
a, b = full(x), separable(x)
print(tuple(a.shape), tuple(b.shape))
b.mean().backward()
print(f"input grad norm {x.grad.norm().item():.6f}")
dw = separable[0]
print("depthwise weight", tuple(dw.weight.shape), f"grad sum {dw.weight.grad.sum().item():.6f}")
print(dw.weight.grad[0, 0])
