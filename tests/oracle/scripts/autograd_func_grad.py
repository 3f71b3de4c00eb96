import torch
from torch.func import grad, grad_and_value

x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)


def f(x):
    return (x.sin() * x).sum()


print(grad(f)(x))
print(grad_and_value(f)(x))
g2 = grad(grad(lambda t: t.sin() * t**2))
print(g2(torch.tensor(1.5, dtype=torch.float64)))
print(grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(torch.ones(2), torch.arange(2.0)))
print(grad(lambda a: ((a**2).sum(), a.mean()), has_aux=True)(torch.ones(3)))
try:
    grad(lambda t: t**2)(x)
except RuntimeError as e:
    print("RuntimeError:", e)
