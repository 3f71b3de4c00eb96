# Check Hessian-vector products of a small network's loss against finite differences of
# gradients, the way influence-function code validates its HVPs.
import torch
from torch.autograd.functional import vhp

torch.manual_seed(0)
X = torch.randn(10, 3, dtype=torch.float64)
y = torch.randn(10, dtype=torch.float64)


def loss_of(w):
    return (torch.tanh(X @ w) - y).pow(2).mean()


w = torch.randn(3, dtype=torch.float64)
v = torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64)
value, hv = vhp(loss_of, w, v)


def grad_at(point):
    point = point.clone().requires_grad_(True)
    return torch.autograd.grad(loss_of(point), point)[0]


h = 1e-5
fd = (grad_at(w + h * v) - grad_at(w - h * v)) / (2 * h)
print(f"loss {value.item():.6f}")
print("vhp:", [f"{t:.6f}" for t in hv.tolist()])
print("fd: ", [f"{t:.6f}" for t in fd.tolist()])
print("close:", torch.allclose(hv, fd, atol=1e-7))
