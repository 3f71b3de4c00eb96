# The Hessian of a loss with respect to a flat parameter vector: eigenvalues tell curvature.
import torch
from torch.autograd.functional import hessian

torch.manual_seed(0)
X = torch.randn(20, 2, dtype=torch.float64)
y = torch.sin(X[:, 0]) + 0.5 * X[:, 1]


def loss_of(theta):
    w1 = theta[:4].reshape(2, 2)
    b1 = theta[4:6]
    w2 = theta[6:8]
    h = torch.tanh(X @ w1 + b1)
    return ((h @ w2 - y) ** 2).mean()


theta = torch.randn(8, dtype=torch.float64) * 0.5
H = hessian(loss_of, theta)
print("shape:", tuple(H.shape), "symmetric:", torch.allclose(H, H.T))
diag = torch.stack([H[i, i] for i in range(H.shape[0])])
print("diag:", " ".join(f"{v:.4f}" for v in diag.tolist()))
print(f"trace: {diag.sum().item():.6f}")
g = torch.autograd.functional.jacobian(loss_of, theta)
print(f"grad norm: {g.norm().item():.6f}")
