# Gradients of a linear-regression loss three ways: backward(), torch.func.grad and jacrev.
import torch
from torch.func import grad, jacrev

torch.manual_seed(0)
X = torch.randn(50, 3)
w_true = torch.tensor([2.0, -1.0, 0.5])
y = X @ w_true + 0.1 * torch.randn(50)


def loss(w):
    return ((X @ w - y) ** 2).mean()


w = torch.zeros(3)
for it in range(4):
    g = grad(loss)(w)
    w = w - 0.3 * g
    print(f"iter {it}: loss {loss(w).item():.5f}")
wr = w.clone().requires_grad_(True)
loss(wr).backward()
print("grad == backward:", torch.allclose(grad(loss)(w), wr.grad))
residual_jac = jacrev(lambda w: X @ w - y)(w)
print("residual jacobian equals X:", tuple(residual_jac.shape), torch.allclose(residual_jac, X))
