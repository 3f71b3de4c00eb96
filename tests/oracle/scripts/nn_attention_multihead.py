"""nn.MultiheadAttention vs torch: init order, outputs, averaged/per-head weights, masks, grads."""

import torch
import torch.nn as nn


def walk(t, limit=40):
    seen, queue, names = set(), [t.grad_fn], []
    while queue and len(names) < limit:
        fn = queue.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        names.append(type(fn).__name__)
        queue.extend(n for n, _ in fn.next_functions)
    return " ".join(names)


torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2)
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
print(mha.in_proj_weight[:2, :4], mha.out_proj.weight[0, :4])
x = torch.randn(5, 3, 8, requires_grad=True)
for kw in [{}, {"need_weights": False}, {"average_attn_weights": False}]:
    out, w = mha(x, x, x, **kw)
    print(list(kw), tuple(out.shape), None if w is None else tuple(w.shape))
    print(" out:", walk(out))
    print(f" {out.sum().item():.4f}", None if w is None else f"{w.sum().item():.4f}")
out, w = mha(x, x, x)
print(w[0])
pad = torch.tensor([[False] * 4 + [True], [False] * 5, [False] * 3 + [True] * 2])
causal = torch.arange(5).view(1, 5) > torch.arange(5).view(5, 1)
for kw in [
    {"key_padding_mask": pad},
    {"attn_mask": causal},
    {"attn_mask": causal, "key_padding_mask": pad},
    {"attn_mask": causal, "need_weights": False, "is_causal": True},
]:
    out, w = mha(x, x, x, **kw)
    print(sorted(kw), f"{out.sum().item():.4f}", None if w is None else w[2, -1])
m2 = nn.MultiheadAttention(8, 4, batch_first=True, bias=False)
q, kv = torch.randn(3, 2, 8), torch.randn(3, 6, 8)
out, w = m2(q, kv, kv)
print(tuple(out.shape), tuple(w.shape), walk(out, 12))
out, w = m2(q, kv, torch.randn(3, 6, 8))
out.pow(2).sum().backward()
print([f"{p.grad.abs().sum().item():.4f}" for p in m2.parameters()])
out, w = mha(x[:, 0], x[:, 0], x[:, 0])
print(tuple(out.shape), tuple(w.shape))
mha.eval()
with torch.no_grad():
    out, _ = mha(x, x, x)
print(f"{out.sum().item():.4f}")
