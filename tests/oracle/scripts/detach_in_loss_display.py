# Accumulating a running loss with .detach() / .item() keeps no graph alive.
import torch

w = torch.tensor([0.5], requires_grad=True)
running = torch.zeros(1)
total = 0.0
for step in range(3):
    loss = ((w * (step + 1) - 1.0) ** 2).sum()
    running = running + loss.detach()
    total += loss.item()
print(running, running.requires_grad)
print(round(total, 5))
print(type(loss.grad_fn).__name__)
