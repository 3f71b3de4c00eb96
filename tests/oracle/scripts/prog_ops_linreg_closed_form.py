"""Linear regression two ways: the normal equations with torch.linalg.solve, and gradient
descent on the same data, which converges to the same weights."""

import torch

torch.manual_seed(1)
n, d = 64, 3
X = torch.randn(n, d, dtype=torch.float64)
true_w = torch.tensor([[2.0], [-1.0], [0.5]], dtype=torch.float64)
y = X @ true_w + 0.3 + 0.05 * torch.randn(n, 1, dtype=torch.float64)

Xb = torch.cat([X, torch.ones(n, 1, dtype=torch.float64)], dim=1)
w_closed = torch.linalg.solve(Xb.T @ Xb, Xb.T @ y)
print("closed form:", [f"{v:.4f}" for v in w_closed.flatten().tolist()])
w_pinv = torch.linalg.pinv(Xb) @ y
print("pinv agrees:", torch.allclose(w_closed, w_pinv))

w = torch.zeros(d + 1, 1, dtype=torch.float64, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for step in range(300):
    opt.zero_grad()
    loss = ((Xb @ w - y) ** 2).mean()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(f"step {step:3d} loss {loss.item():.6f}")
print("gradient descent:", [f"{v:.4f}" for v in w.detach().flatten().tolist()])
print("agree to 1e-8:", (w.detach() - w_closed).abs().max().item() < 1e-8)

# ridge regression: gradients flow through solve into the regulariser strength
lam = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
A = Xb.T @ Xb + lam * torch.eye(d + 1, dtype=torch.float64)
w_ridge = torch.linalg.solve(A, Xb.T @ y)
val_loss = ((Xb[:16] @ w_ridge - y[:16]) ** 2).mean()
val_loss.backward()
print(type(w_ridge.grad_fn).__name__, f"dval/dlam = {lam.grad.item():.6f}")
