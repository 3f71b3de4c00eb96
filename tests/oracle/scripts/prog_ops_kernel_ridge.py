"""Kernel ridge regression with an RBF kernel: squared distances from an outer product,
the diagonal, a solve; the kernel width learned by gradient descent on a validation loss."""

import torch

torch.manual_seed(13)
x = torch.linspace(-3, 3, 20, dtype=torch.float64)
y = torch.sin(x) + 0.1 * torch.randn(20, dtype=torch.float64)
train, val = torch.arange(0, 20, 2), torch.arange(1, 20, 2)
log_width = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([log_width], lr=0.1)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    d2 = a.unsqueeze(1) ** 2 + b.unsqueeze(0) ** 2 - 2 * torch.outer(a, b)
    return torch.exp(-d2 / (2 * log_width.exp() ** 2))


for step in range(30):
    K = kernel(x[train], x[train])
    alpha = torch.linalg.solve(K + 0.1 * torch.eye(10, dtype=torch.float64), y[train])
    pred = kernel(x[val], x[train]) @ alpha
    loss = ((pred - y[val]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d} val mse {loss.item():.5f} width {log_width.exp().item():.4f}")
K = kernel(x[train], x[train]).detach()
print("diag of K:", torch.diag(K)[:3].tolist())
print(f"log det K+I: {torch.logdet(K + torch.eye(10, dtype=torch.float64)).item():.4f}")
print(f"cond ~ {(torch.linalg.eigvalsh(K).max() / torch.linalg.eigvalsh(K).min()).item():.3e}")
print(type(torch.outer(x, x).grad_fn), type(alpha.grad_fn).__name__)
