# Fitting an exponential decay by Gauss-Newton: the Jacobian of the residuals gives the step.
import torch
from torch.autograd.functional import jacobian

t = torch.linspace(0, 4, 20, dtype=torch.float64)
obs = 3.0 * torch.exp(-0.7 * t) + 0.5


def residuals(p):
    a, k, c = p[0], p[1], p[2]
    return a * torch.exp(-k * t) + c - obs


p = torch.tensor([1.0, 0.3, 0.0], dtype=torch.float64)
for it in range(6):
    r = residuals(p)
    J = jacobian(residuals, p)
    JTJ = J.T @ J
    JTr = J.T @ r
    # solve the 3x3 normal equations J^T J d = J^T r by conjugate gradients
    d = torch.zeros(3, dtype=torch.float64)
    res = JTr.clone()
    direc = res.clone()
    for _ in range(3):
        Ad = JTJ @ direc
        alpha = (res @ res) / (direc @ Ad)
        d = d + alpha * direc
        new = res - alpha * Ad
        direc = new + (new @ new) / (res @ res) * direc
        res = new
    p = p - d
    print(f"iter {it}: cost {0.5 * (r**2).sum().item():.3e}")
print("params:", [round(v, 4) for v in p.tolist()])
