# LBFGS needs a closure; it calls it several times per step (func_evals, n_iter).
import torch

x = torch.linspace(-1, 1, 15)
y = 0.7 * x**3 - 0.2 * x + 0.1
coef = torch.zeros(4, requires_grad=True)
opt = torch.optim.LBFGS([coef], lr=1, max_iter=15, history_size=5)
calls = 0


def closure():
    global calls
    calls += 1
    opt.zero_grad()
    pred = coef[0] + coef[1] * x + coef[2] * x**2 + coef[3] * x**3
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    return loss


for i in range(2):
    loss = opt.step(closure)
    print(i, f"{loss.item():.6f}", calls, opt.state[coef]["func_evals"], opt.state[coef]["n_iter"])
print([round(v, 3) for v in coef.tolist()])
print(opt)
