import torch
from torch.autograd.functional import hessian

torch.manual_seed(0)
x = torch.randn(3, dtype=torch.float64)


def f(x):
    return (x**3).sum() + x[0] * x[1]


H = hessian(f, x)
print(H)
print(torch.allclose(H, H.T))
a, b = torch.randn(2, dtype=torch.float64), torch.randn(2, dtype=torch.float64)
Hab = hessian(lambda a, b: (a * b).sum() * (a**2).sum(), (a, b))
print(len(Hab), [tuple(h.shape) for row in Hab for h in row])
print(Hab[0][1])
try:
    hessian(lambda x: x * 2, x)
except RuntimeError as e:
    print("RuntimeError:", e)
