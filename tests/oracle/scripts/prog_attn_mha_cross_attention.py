"""Cross-attention: decoder queries attend over encoder memory with a padding mask."""

import torch
import torch.nn as nn

torch.manual_seed(0)
cross = nn.MultiheadAttention(8, 4)
memory = torch.randn(6, 2, 8, requires_grad=True)
queries = torch.randn(3, 2, 8, requires_grad=True)
pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
out, w = cross(queries, memory, memory, key_padding_mask=pad)
print(tuple(out.shape), tuple(w.shape))
print("padded keys get zero weight:", w[1, :, 4:].abs().max().item() == 0.0)
out.pow(2).sum().backward()
print(f"{memory.grad[4:, 1].abs().max().item():.4f} {memory.grad[:4, 1].abs().sum().item():.4f}")
print(f"{queries.grad.abs().sum().item():.4f}")
print(w[0])
