"""A miniature Vision Transformer step: cut 8x8 images into 4x4 patches, embed them, add a
class token, encode, and classify from the class token."""

import torch
import torch.nn as nn

torch.manual_seed(0)
imgs = torch.randn(2, 1, 8, 8)
patches = imgs.reshape(2, 1, 2, 4, 2, 4).permute(0, 2, 4, 1, 3, 5).reshape(2, 4, 16)
print(tuple(patches.shape))
embed = nn.Linear(16, 8)
cls_token = nn.Parameter(torch.zeros(1, 1, 8))
pos = nn.Parameter(torch.randn(1, 5, 8) * 0.02)
encoder = nn.TransformerEncoderLayer(
    8, 2, 16, dropout=0.0, batch_first=True, norm_first=True, activation="gelu"
)
head = nn.Linear(8, 3)
tokens = torch.cat([cls_token.expand(2, -1, -1), embed(patches)], dim=1) + pos
logits = head(encoder(tokens)[:, 0])
print(logits)
loss = nn.functional.cross_entropy(logits, torch.tensor([0, 2]))
loss.backward()
print(f"loss {loss.item():.4f} cls grad {cls_token.grad.abs().sum().item():.4f}")
print(f"pos grad {pos.grad.abs().sum().item():.4f}")
