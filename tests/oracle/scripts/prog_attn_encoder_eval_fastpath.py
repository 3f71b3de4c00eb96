"""A trained-looking TransformerEncoder evaluated three ways: train mode with dropout 0,
eval mode with grad, eval mode under no_grad (torch's fused fast path): same numbers."""

import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(8, 4, dim_feedforward=32, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=3)
x = torch.randn(2, 6, 8)
a = enc(x)
enc.eval()
b = enc(x)
with torch.no_grad():
    c = enc(x)
print(torch.allclose(a, b, atol=1e-6), torch.allclose(b, c, atol=1e-5))
print(a.requires_grad, c.requires_grad)
print(f"{c.abs().sum().item():.3f}")
print(c[0, 0])
