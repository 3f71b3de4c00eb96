"""Fitting a 2-D Gaussian by maximum likelihood: the log-density through a Cholesky factor
(log det from its diagonal, a triangular solve via linalg.solve)."""

import math

import torch

torch.manual_seed(5)
true_cov = torch.tensor([[1.0, 0.6], [0.6, 0.8]], dtype=torch.float64)
L_true = torch.linalg.cholesky(true_cov)
data = torch.randn(200, 2, dtype=torch.float64) @ L_true.T + torch.tensor([1.0, -0.5])

mu = torch.zeros(2, dtype=torch.float64, requires_grad=True)
raw = torch.zeros(2, 2, dtype=torch.float64, requires_grad=True)  # unconstrained factor
opt = torch.optim.Adam([mu, raw], lr=0.05)


def log_likelihood(x: torch.Tensor) -> torch.Tensor:
    L = torch.tril(raw, -1) + torch.diag(raw.diagonal().exp())
    cov = L @ L.T + 1e-6 * torch.eye(2, dtype=torch.float64)
    C = torch.linalg.cholesky(cov)
    z = torch.linalg.solve(C, (x - mu).T)
    logdet = 2 * C.diagonal().log().sum()
    return -0.5 * ((z**2).sum(0) + logdet + 2 * math.log(2 * math.pi))


for step in range(60):
    opt.zero_grad()
    nll = -log_likelihood(data).mean()
    nll.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step:3d} nll {nll.item():.4f}")
L = torch.tril(raw, -1) + torch.diag(raw.diagonal().exp())
print("mu:", [f"{v:.3f}" for v in mu.tolist()])
print("cov:", [[f"{v:.3f}" for v in r] for r in (L @ L.T).tolist()])
print("slogdet:", [f"{v:.4f}" for v in torch.linalg.slogdet(L @ L.T)])
print("cholesky grad_fn:", type(torch.linalg.cholesky(L @ L.T).grad_fn).__name__)
