# The polynomial-fit tutorial: linspace data, a sin target, randn coefficients, 2000 steps.
# Losses to 3 decimals: sin differs from torch's in the last bit for 1 element in 8.
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
a, b, c, d = (torch.randn((), requires_grad=True) for _ in range(4))
for t in range(2000):
    loss = (a + b * x + c * x**2 + d * x**3 - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= 1e-6 * p.grad
            p.grad = None
print(f"y = {a.item():.6f} + {b.item():.6f} x + {c.item():.6f} x^2 + {d.item():.6f} x^3")
