"""A one-block causal language model: pre-norm, multi-head causal SDPA, MLP; a few steps."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, H, T_ = 10, 8, 2, 6


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Linear(V, D, bias=False)
        self.block = Block()
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, V)

    def forward(self, idx):
        x = self.tok(torch.eye(V)[idx])
        return self.head(self.ln_f(self.block(x)))


model = LM()
data = torch.randint(0, V, (4, T_ + 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(8):
    logits = model(data[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), data[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print(type(logits.grad_fn).__name__)
