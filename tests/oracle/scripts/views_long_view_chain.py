# 2,000 nested views all share one version counter and one base.
import torch

base = torch.zeros(4)
v = base
for _ in range(2000):
    v = v.view(2, 2).view(4)
v.add_(1)
print(base, base._version, v._version, v._base is base)
x = torch.ones(4, requires_grad=True)
w = x * 1
for _ in range(2000):
    w = w.view(2, 2).view(4)
w.sum().backward()
print(x.grad)
