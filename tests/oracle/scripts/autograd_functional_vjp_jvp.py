import torch
from torch.autograd.functional import jvp, vjp

torch.manual_seed(1)
A = torch.randn(3, 3)


def f(x):
    return (A @ x).sin()


x = torch.randn(3)
out, g = vjp(f, x, torch.ones(3))
print(out)
print(g)
out, t = jvp(f, x, torch.tensor([1.0, 0.0, 0.0]))
print(t)
print(vjp(lambda x: (x**2).sum(), x)[1])
try:
    vjp(f, x)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    vjp(f, x, torch.ones(2))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    vjp(f, [1.0, 2.0])
except TypeError as e:
    print("TypeError:", e)
