"""Scaled dot-product self-attention written from scratch (bias-free q/k/v Linear layers on a
batch of sequences), checked against F.scaled_dot_product_attention."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SelfAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        weights = scores.softmax(dim=-1)
        return weights @ v, weights, (q, k, v)


attn = SelfAttention(4)
x = torch.randn(2, 3, 4)
out, w, (q, k, v) = attn(x)
ref = F.scaled_dot_product_attention(q, k, v)
print("matches sdpa:", torch.allclose(out, ref, atol=1e-6))
print(type(q.grad_fn).__name__, type(out.grad_fn).__name__, type(ref.grad_fn).__name__)
out.sum().backward()
print(f"{attn.q.weight.grad.abs().sum().item():.4f} {attn.v.weight.grad.abs().sum().item():.4f}")
print(w[0])
