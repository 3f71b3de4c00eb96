# One self-attention block: queries, keys and values from the same x, softmax of the scaled
# scores, a residual connection and a layer norm, as in a transformer layer.
import math

import torch
from torch import nn

torch.manual_seed(0)
d = 8
q, k, v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
out = nn.Linear(d, d)
norm = nn.LayerNorm(d)
x = torch.randn(2, 5, d)
target = torch.randn(2, 5, d)

scores = q(x) @ k(x).transpose(-2, -1) / math.sqrt(d)
att = torch.softmax(scores, dim=-1)
y = norm(x + out(att @ v(x)))
loss = (y - target).pow(2).mean()
loss.backward()
print(f"loss {loss.item():.4f}  q.weight.grad norm {q.weight.grad.norm():.4f}")
