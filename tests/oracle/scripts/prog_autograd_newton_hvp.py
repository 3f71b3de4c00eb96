# Newton's method for logistic regression: the Newton direction solves H d = g by conjugate
# gradients, using only Hessian-vector products (never forming H).
import torch
from torch.autograd.functional import hvp

torch.manual_seed(0)
X = torch.randn(64, 3, dtype=torch.float64)
true_w = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64)
y = (torch.sigmoid(X @ true_w) > 0.5).double()


def loss_fn(w):
    logits = X @ w
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, y) + 0.01 * (w**2).sum()


def conjugate_gradient(w, b, iters=10):
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    for _ in range(iters):
        _, Ap = hvp(loss_fn, w, p)
        alpha = (r @ r) / (p @ Ap)
        x = x + alpha * p
        r_new = r - alpha * Ap
        if r_new.norm() < 1e-10:
            break
        beta = (r_new @ r_new) / (r @ r)
        p = r_new + beta * p
        r = r_new
    return x


w = torch.zeros(3, dtype=torch.float64)
for step in range(5):
    w_req = w.clone().requires_grad_(True)
    loss = loss_fn(w_req)
    (g,) = torch.autograd.grad(loss, w_req)
    d = conjugate_gradient(w, g)
    w = w - d
    print(f"step {step}: loss={loss.item():.6f} |g|={g.norm().item():.2e}")
print("w:", [round(v, 4) for v in w.tolist()])
