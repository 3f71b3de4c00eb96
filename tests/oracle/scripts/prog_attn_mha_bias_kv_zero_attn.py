# MultiheadAttention with a learned extra key/value (add_bias_kv) and an all-zero one
# (add_zero_attn): the attention weights gain columns, and a fully padded row stays finite
import torch
from torch import nn

torch.manual_seed(9)
both = dict(add_bias_kv=True, add_zero_attn=True)
for kw in (dict(add_bias_kv=True), dict(add_zero_attn=True), both):
    attn = nn.MultiheadAttention(6, 3, **kw)
    x = torch.randn(4, 2, 6, requires_grad=True)
    mask = torch.zeros(4, 4)
    mask[0, 1:] = float("-inf")
    out, w = attn(x, x, x, attn_mask=mask, average_attn_weights=False)
    print(kw, tuple(w.shape), f"{out.abs().sum():.4f}")
    print(w[0, 0, 0])
    (out.pow(2).mean() + w.max()).backward()
    print(f"  x.grad={x.grad.norm():.4f} in_proj={attn.in_proj_weight.grad.norm():.4f}")
    if attn.bias_k is not None:
        print(f"  bias_k {tuple(attn.bias_k.shape)} grad={attn.bias_k.grad.norm():.4f}")
attn = nn.MultiheadAttention(6, 3, add_zero_attn=True)
x = torch.randn(2, 1, 6)
out, w = attn(x, x, x, key_padding_mask=torch.tensor([[True, True]]))
print(torch.isfinite(out).all(), w)
