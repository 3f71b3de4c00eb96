"""F.scaled_dot_product_attention vs torch: which path (grad_fn), values, gradients."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
for shape in [(3, 4), (2, 3, 4), (1, 2, 3, 4)]:
    variants = [{}, {"is_causal": True}, {"scale": 0.3}, {"dropout_p": 0.5}]
    for kw in variants + [{"mask": "bool"}, {"mask": "float"}]:
        for dt in (torch.float32, torch.float64):
            torch.manual_seed(1)
            q = torch.randn(*shape, dtype=dt, requires_grad=True)
            k = torch.randn(*shape, dtype=dt, requires_grad=True)
            v = torch.randn(*shape, dtype=dt, requires_grad=True)
            kw2 = dict(kw)
            L = shape[-2]
            if kw2.pop("mask", None) == "bool":
                kw2["attn_mask"] = torch.tensor([[True, False, True]] * L)
            elif kw.get("mask") == "float":
                kw2["attn_mask"] = torch.randn(L, L, dtype=dt)
            o = F.scaled_dot_product_attention(q, k, v, **kw2)
            (o * torch.arange(o.numel(), dtype=dt).reshape(o.shape).cos()).sum().backward()
            print(
                shape,
                list(kw),
                dt,
                type(o.grad_fn).__name__,
                f"{o.sum().item():.4f}",
                " ".join(f"{t.grad.abs().sum().item():.4f}" for t in (q, k, v)),
            )
q = torch.randn(1, 2, 3, 4)
none = torch.zeros(3, 3, dtype=torch.bool)
print(F.scaled_dot_product_attention(q, q, q, attn_mask=none))
print(F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=none))
try:
    F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(3, 3), is_causal=True)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
o = F.scaled_dot_product_attention(q, q, q, attn_mask=torch.randn(3, 3), is_causal=True)
print(o.sum(-1))
