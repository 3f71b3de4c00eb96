"""A linear normalizing flow: z = W x + b, log p(x) = log N(z) + log|det W|, trained by
maximum likelihood; the inverse maps samples back."""

import math

import torch

torch.manual_seed(14)
data = torch.randn(128, 2) @ torch.tensor([[2.0, 0.0], [1.0, 0.5]]) + torch.tensor([1.0, 2.0])
W = torch.eye(2, requires_grad=True)
b = torch.zeros(2, requires_grad=True)
opt = torch.optim.Adam([W, b], lr=0.05)

for step in range(200):
    z = data @ W.T + b
    log_pz = -0.5 * (z**2).sum(1) - math.log(2 * math.pi)
    sign, logabsdet = torch.linalg.slogdet(W)
    nll = -(log_pz + logabsdet).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step:3d} nll {nll.item():.4f}")
print(f"final nll {nll.item():.3f}")
print(type(logabsdet.grad_fn).__name__, type(sign.grad_fn).__name__)
W_inv = torch.linalg.inv(W.detach())
z = torch.tensor([[0.0, 0.0], [1.0, -1.0]])
x = (z - b.detach()) @ W_inv.T
print("inverse maps back:", torch.allclose(x @ W.detach().T + b.detach(), z, atol=1e-5))
print(f"det {torch.det(W).item():.3f}", torch.det(W).grad_fn.name())
print("inverse grad_fn:", type(torch.inverse(W).grad_fn).__name__)
