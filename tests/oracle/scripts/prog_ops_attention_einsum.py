"""Causal self-attention written with einsum: scores, a triu mask, softmax, weighted sum."""

import torch
import torch.nn as nn

torch.manual_seed(6)
B, T, H, D = 2, 4, 2, 3
x = torch.randn(B, T, H * D)
qkv = nn.Linear(H * D, 3 * H * D)
q, k, v = qkv(x).chunk(3, dim=-1)
q, k, v = (t.reshape(B, T, H, D) for t in (q, k, v))

scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / D**0.5
causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
scores = scores.masked_fill(causal, float("-inf"))
attn = scores.softmax(dim=-1)
out = torch.einsum("bhqk,bkhd->bqhd", attn, v).reshape(B, T, H * D)
print("attn row sums:", [f"{v:.4f}" for v in attn.sum(-1)[0, 0].tolist()])
print("first row weights:", [f"{w:.4f}" for w in attn[0, 0, 2].tolist()])
print(tuple(out.shape), type(out.grad_fn).__name__, type(scores.grad_fn).__name__)

loss = out.pow(2).mean()
loss.backward()
print(f"loss {loss.item():.5f}")
print("qkv grad norm:", f"{qkv.weight.grad.norm().item():.5f}")
print("trace via einsum:", f"{torch.einsum('ii', attn[0, 0]).item():.4f}")
print("batched outer:", tuple(torch.einsum("bi,bj->bij", x[:, 0], x[:, 1]).shape))
