"""A stacked GRU with dropout between layers: training mode draws masks, eval mode does not."""

import torch
import torch.nn as nn

torch.manual_seed(0)
gru = nn.GRU(3, 4, num_layers=3, dropout=0.3)
x = torch.randn(5, 2, 3)
gru.train()
out_a, _ = gru(x)
out_b, _ = gru(x)
print("train differs:", not torch.equal(out_a, out_b))
print(f"{out_a.sum().item():.4f} {out_b.sum().item():.4f}")
gru.eval()
out_c, h = gru(x)
out_d, _ = gru(x)
print("eval equal:", torch.equal(out_c, out_d))
print(f"{out_c.sum().item():.4f}", tuple(h.shape))
gru.train()
out, h = gru(x)
out.sum().backward()
print(f"{gru.weight_ih_l2.grad.abs().sum().item():.4f}")
print(gru)
