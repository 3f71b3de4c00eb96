# Directional derivatives: jvp gives J v in one call; compare with finite differences.
import torch
from torch.autograd.functional import jvp


def rosenbrock(p):
    x, y = p[0], p[1]
    return (1 - x) ** 2 + 100 * (y - x**2) ** 2


p = torch.tensor([-1.0, 2.0], dtype=torch.float64)
for direction in ([1.0, 0.0], [0.0, 1.0], [0.6, 0.8]):
    v = torch.tensor(direction, dtype=torch.float64)
    value, dd = jvp(rosenbrock, p, v)
    h = 1e-6
    fd = (rosenbrock(p + h * v) - rosenbrock(p - h * v)) / (2 * h)
    print(f"v={direction}: f={value.item():.1f} jvp={dd.item():.6f} fd={fd.item():.6f}")


def field(p):
    return torch.stack([p[0] * p[1], p[0].sin() + p[1] ** 2])


_, Jv = jvp(field, p, torch.tensor([1.0, 1.0], dtype=torch.float64))
print("J v:", [round(t, 6) for t in Jv.tolist()])
