# Second-order MAML on sine regression: the inner SGD step stays in the graph
import math

import torch
from torch import nn
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1))
meta_opt = torch.optim.SGD(model.parameters(), lr=0.01)
inner_lr = 0.05
for it in range(4):
    amp, phase = 1 + it * 0.5, it * 0.3
    x = torch.linspace(-3, 3, 25).unsqueeze(1)
    y = amp * torch.sin(x + phase)
    params = dict(model.named_parameters())
    inner = nn.functional.mse_loss(functional_call(model, params, (x,)), y)
    grads = torch.autograd.grad(inner, list(params.values()), create_graph=True)
    adapted = {k: v - inner_lr * g for (k, v), g in zip(params.items(), grads)}
    outer = nn.functional.mse_loss(functional_call(model, adapted, (x,)), y)
    meta_opt.zero_grad()
    outer.backward()
    meta_opt.step()
    print(f"iter {it}: inner {inner.item():.4f} outer {outer.item():.4f}")
print(type(grads[0].grad_fn).__name__, round(math.pi, 3))
