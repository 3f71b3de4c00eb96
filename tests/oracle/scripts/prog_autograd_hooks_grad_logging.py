"""Logging gradient norms per layer during training with full backward hooks, as in a
debugging tutorial: each hook records the norm of grad_output and grad_input."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2))
log = []


def make_hook(name):
    def hook(module, grad_input, grad_output):
        gin = grad_input[0]
        log.append(
            (
                name,
                round(grad_output[0].norm().item(), 4),
                None if gin is None else round(gin.norm().item(), 4),
            )
        )

    return hook


handles = [
    m.register_full_backward_hook(make_hook(f"{i}:{type(m).__name__}")) for i, m in enumerate(model)
]
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
target = torch.randn(8, 2)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
    for entry in log:
        print("  ", entry)
    log.clear()

for h in handles:
    h.remove()
model(x).sum().backward()
print("after remove:", log)
