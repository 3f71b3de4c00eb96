"""F.scaled_dot_product_attention with a boolean mask, a float bias mask and is_causal: the
masked positions get no weight and no gradient."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
q = torch.randn(1, 2, 4, 3, requires_grad=True)
k = torch.randn(1, 2, 4, 3, requires_grad=True)
v = torch.randn(1, 2, 4, 3, requires_grad=True)
allowed = torch.tensor([True, True, False, True]).expand(4, 4)
out_bool = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
bias = torch.zeros(4, 4)
bias[:, 2] = float("-inf")
out_float = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
print("bool == float mask:", torch.allclose(out_bool, out_float))
out_bool.sum().backward()
print("no grad to masked value:", v.grad[0, :, 2].abs().max().item() == 0.0)
out_causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("first query sees only first value:", torch.allclose(out_causal[0, :, 0], v[0, :, 0]))
print(type(out_causal.grad_fn).__name__)
print(out_causal[0, 0])
