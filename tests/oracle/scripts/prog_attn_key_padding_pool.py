"""Variable-length sequences: a padded batch through a TransformerEncoderLayer with
src_key_padding_mask, then a masked mean pool."""

import torch
import torch.nn as nn

torch.manual_seed(0)
lengths = torch.tensor([5, 3, 2])
batch = torch.randn(3, 5, 4)
pad = torch.arange(5).unsqueeze(0) >= lengths.unsqueeze(1)
print(pad)
layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True)
enc = layer(batch, src_key_padding_mask=pad)
keep = (~pad).unsqueeze(-1).float()
pooled = (enc * keep).sum(1) / keep.sum(1)
print(tuple(pooled.shape))
print(pooled)
pooled.sum().backward()
print(f"{layer.linear1.weight.grad.abs().sum().item():.4f}")
