# Poisson regression: rate = exp(linear), negative log-likelihood with log, plain gradient descent.
import torch

torch.manual_seed(3)
x = torch.rand(500, 3)
true_w = torch.tensor([0.8, -0.5, 1.2])
rate = torch.exp(x @ true_w + 0.3)
counts = torch.round(rate)
w = torch.zeros(3, requires_grad=True)
b = torch.zeros((), requires_grad=True)
for step in range(500):
    eta = x @ w + b
    nll = (torch.exp(eta) - counts * eta).mean()
    nll.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
    if step % 100 == 0:
        print(f"step {step} nll {nll.item():.5f}")
print("w", [f"{v:.3f}" for v in w.tolist()], "b", f"{b.item():.3f}")
print("log mean rate", f"{torch.log(torch.exp(x @ w + b).mean()).item():.4f}")
