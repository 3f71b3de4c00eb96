"""Sinusoidal positional encoding (the original Transformer's) added before an encoder layer."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)
d_model, max_len = 8, 10
position = torch.arange(max_len).unsqueeze(1)
div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
pe = torch.zeros(max_len, 1, d_model)
pe[:, 0, 0::2] = torch.sin(position * div_term)
pe[:, 0, 1::2] = torch.cos(position * div_term)
print(pe[:3, 0])
layer = nn.TransformerEncoderLayer(d_model, 2, dim_feedforward=16, dropout=0.0)
src = torch.randn(5, 2, d_model)
out = layer(src + pe[:5])
print(tuple(out.shape), type(out.grad_fn).__name__)
print(f"{out.pow(2).mean().item():.5f} {out.std().item():.4f}")
print(out[0, 0])
