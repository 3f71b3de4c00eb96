# Fitting a cubic polynomial's coefficients with NAdam (the tutorial's polynomial fit, with
# another optimizer and a StepLR halving the lr every 100 steps).
import torch

x = torch.linspace(-1, 1, 100)
y = torch.sin(2 * x)
a, b, c, d = (torch.zeros((), requires_grad=True) for _ in range(4))
opt = torch.optim.NAdam([a, b, c, d], lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=100, gamma=0.5)
for t in range(500):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).mean()
    if t % 100 == 99:
        print(t, f"{loss.item():.4f}", f"lr={sched.get_last_lr()[0]:.5f}")
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
coefs = [round(t.item(), 3) + 0.0 for t in (a, b, c, d)]  # + 0.0: no "-0.0" for tiny ones
print("y = {} + {} x + {} x^2 + {} x^3".format(*coefs))
