# LBFGS with the strong-Wolfe line search on a smooth convex function; other names raise.
import torch

p = torch.tensor([-1.5, 2.0], requires_grad=True)
opt = torch.optim.LBFGS([p], lr=1, max_iter=10, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = (p[0] - 1) ** 2 + 10 * (p[1] + 2) ** 2 + p[0] * p[1] + torch.exp(0.3 * p[0])
    loss.backward()
    return loss


for i in range(3):
    loss = opt.step(closure)
    print(i, f"{loss.item():.4f}", [round(v, 4) for v in p.tolist()], opt.state[p]["func_evals"])
q = torch.tensor([3.0, 3.0], requires_grad=True)
other = torch.optim.LBFGS([q], line_search_fn="backtracking")
try:
    other.step(lambda: (q**2).sum().backward() or (q**2).sum())
except RuntimeError as e:
    print("RuntimeError:", e)
