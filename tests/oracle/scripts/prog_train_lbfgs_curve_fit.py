# Curve fitting with LBFGS (the SciPy-like use): fit a*exp(-b*t) + c to noisy samples.
import torch

torch.manual_seed(0)
t = torch.linspace(0, 4, 40)
y = 2.5 * torch.exp(-1.3 * t) + 0.5 + 0.02 * torch.randn(40)
params = torch.tensor([1.0, 1.0, 0.0], requires_grad=True)
optimizer = torch.optim.LBFGS([params], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    optimizer.zero_grad()
    a, b, c = params
    loss = ((a * torch.exp(-b * t) + c - y) ** 2).mean()
    loss.backward()
    return loss


for i in range(4):
    loss = optimizer.step(closure)
    print(f"iter {i}: loss {loss.item():.6f}")
a, b, c = params.tolist()
print(f"a={a:.3f} b={b:.3f} c={c:.3f}")
