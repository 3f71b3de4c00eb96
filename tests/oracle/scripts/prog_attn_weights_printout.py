"""Self-attention weights of nn.MultiheadAttention printed per head and averaged (a common
inspection step in tutorials)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
mha = nn.MultiheadAttention(embed_dim=6, num_heads=2, batch_first=True)
tokens = torch.randn(1, 4, 6)
out, avg = mha(tokens, tokens, tokens)
_, per_head = mha(tokens, tokens, tokens, average_attn_weights=False)
print("output", tuple(out.shape))
print("averaged weights\n", avg[0].detach())
for h in range(2):
    row = ", ".join(f"{w:.3f}" for w in per_head[0, h, 0].tolist())
    print(f"head {h} query 0: [{row}]")
print("rows sum to one:", torch.allclose(avg.sum(-1), torch.ones(1, 4)))
print(type(avg.grad_fn).__name__, type(per_head.grad_fn).__name__)
