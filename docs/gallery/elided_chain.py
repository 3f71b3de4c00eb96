# 10,000 random elementwise ops in a row: nothing repeats, so nothing collapses into a `×N`
# box, and drawn in full it would be ~7,000 inches tall. Each long run of unnamed single ops
# is drawn as one `… N ops …` box between its first and last two; the named `mid` and the
# cut `x.detach()` halfway stay visible.
import random

import torch

random.seed(0)
ops = [torch.tanh, torch.sin, torch.sigmoid, torch.cos, lambda t: t * 1.5, lambda t: t + 0.1]
x = torch.ones(3, requires_grad=True)
y = x
for step in range(10_000):
    y = random.choice(ops)(y)
    if step == 4_999:
        mid = y
        y = y + x.detach()

loss = y.sum()
loss.backward()
print(f"loss {loss.item():.4f}  mid {mid.sum().item():.4f}")
