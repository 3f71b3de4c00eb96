"""A discrete-time survival model: per-step hazards, survival as a cumulative product of
(1 - hazard), the likelihood of observed event times, trained by gradient descent."""

import torch
import torch.nn as nn

torch.manual_seed(7)
n, steps = 8, 5
features = torch.randn(n, 3)
event_time = torch.randint(0, steps, (n,))
observed = torch.tensor([1, 1, 0, 1, 0, 1, 1, 0]).bool()

model = nn.Linear(3, steps)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(4):
    hazard = torch.sigmoid(model(features))
    survival = torch.cumprod(1 - hazard, dim=1)
    prev = torch.cat([torch.ones(n, 1), survival[:, :-1]], dim=1)
    idx = event_time.unsqueeze(1)
    p_event = (prev * hazard).gather(1, idx).squeeze(1)
    p_survive = survival.gather(1, idx).squeeze(1)
    lik = torch.where(observed, p_event, p_survive)
    loss = -lik.clamp(min=1e-8).log().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} nll {loss.item():.4f}")
print("survival row 0:", [f"{v:.4f}" for v in survival[0].tolist()])
print(type(survival.grad_fn).__name__, survival.grad_fn._saved_dim)
expected_steps = survival.sum(dim=1)
print("expected survival steps:", [f"{v:.3f}" for v in expected_steps.tolist()])
# a zero in the product: the gradient is still exact
x = torch.tensor([2.0, 0.0, 3.0, 4.0], requires_grad=True)
x.cumprod(0).sum().backward()
print("cumprod grad with a zero:", x.grad.tolist())
