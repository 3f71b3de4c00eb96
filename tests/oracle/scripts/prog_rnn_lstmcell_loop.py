"""A hand-written loop over nn.LSTMCell (the pattern of many tutorials), with its gradients."""

import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.LSTMCell(4, 5)
readout = nn.Linear(5, 1)
xs = torch.randn(6, 3, 4)
h = torch.zeros(3, 5)
c = torch.zeros(3, 5)
outputs = []
for x in xs:
    h, c = cell(x, (h, c))
    outputs.append(readout(h))
out = torch.stack(outputs)
loss = out.pow(2).mean()
loss.backward()
print(type(h.grad_fn).__name__, type(c.grad_fn).__name__, type(out.grad_fn).__name__)
print(f"loss {loss.item():.5f}")
for name, p in cell.named_parameters():
    print(name, tuple(p.shape), f"{p.grad.abs().sum().item():.5f}")
print(cell)
