"""nn.GRUCell stepped by hand with nn.GRU's weights gives nn.GRU's outputs."""

import torch
import torch.nn as nn

torch.manual_seed(0)
gru = nn.GRU(3, 5)
cell = nn.GRUCell(3, 5)
with torch.no_grad():
    cell.weight_ih.copy_(gru.weight_ih_l0)
    cell.weight_hh.copy_(gru.weight_hh_l0)
    cell.bias_ih.copy_(gru.bias_ih_l0)
    cell.bias_hh.copy_(gru.bias_hh_l0)
x = torch.randn(4, 2, 3)
out, h = gru(x)
hc = torch.zeros(2, 5)
steps = []
for t in range(4):
    hc = cell(x[t], hc)
    steps.append(hc)
manual = torch.stack(steps)
print("max diff below 1e-6:", (manual - out).abs().max().item() < 1e-6)
print(torch.allclose(hc, h[0]))
print(out[-1])
print(type(manual.grad_fn).__name__, type(hc.grad_fn).__name__)
