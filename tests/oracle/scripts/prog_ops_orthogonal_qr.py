"""Keeping a weight matrix orthogonal: parametrise it by the Q of a QR decomposition (signs
fixed by R's diagonal), and train it to rotate one point cloud onto another."""

import torch

torch.manual_seed(15)
theta = torch.tensor(0.7)
R_true = torch.tensor([[theta.cos(), -theta.sin()], [theta.sin(), theta.cos()]])
src = torch.randn(30, 2)
dst = src @ R_true.T
raw = torch.eye(2) + 0.1 * torch.randn(2, 2)
raw.requires_grad_(True)
opt = torch.optim.SGD([raw], lr=0.2)


def orthogonal(m: torch.Tensor) -> torch.Tensor:
    Q, R = torch.linalg.qr(m)
    return Q * torch.sign(torch.diagonal(R)).unsqueeze(0)


for step in range(40):
    Q = orthogonal(raw)
    loss = ((src @ Q.T - dst) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d} loss {loss.item():.5f}")
Q = orthogonal(raw).detach()
print("Q^T Q = I:", torch.allclose(Q.T @ Q, torch.eye(2), atol=1e-6))
print(f"recovered angle {torch.asin(Q[1, 0]).item():.3f}")
q, r = torch.linalg.qr(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
print(tuple(q.shape), tuple(r.shape), type(q.grad_fn))
