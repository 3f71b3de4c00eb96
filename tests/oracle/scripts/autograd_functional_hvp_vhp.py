import torch
from torch.autograd.functional import hvp, vhp

x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
v = torch.tensor([1.0, 1.0, 0.0], dtype=torch.float64)


def f(x):
    return (x.exp() * x).sum() + (x[0] * x[2]) ** 2


value, hv = hvp(f, x, v)
print(value)
print(hv)
value, vh = vhp(f, x, v)
print(vh)
print(torch.allclose(hv, vh))
try:
    hvp(lambda x: x.exp(), x, v)
except RuntimeError as e:
    print("RuntimeError:", e)
