"""Reusing preallocated output buffers in an evaluation loop: topk/sort/max with out=
tuples, as a beam-search style snippet does."""

import torch

torch.manual_seed(0)
scores = torch.randn(4, 10)
values = torch.empty(0)
indices = torch.empty(0, dtype=torch.long)
for step in range(3):
    logits = scores + step * 0.1 * torch.arange(10.0)
    res = torch.topk(logits, 3, dim=1, out=(values, indices))
    print(step, type(res).__name__, indices.tolist())
    print("  best", [f"{v:.3f}" for v in values[:, 0].tolist()])

best, arg = torch.empty(4), torch.empty(4, dtype=torch.long)
torch.max(scores, 1, out=(best, arg))
print("max", arg.tolist(), best.shape)
sv, si = torch.empty(0), torch.empty(0, dtype=torch.long)
torch.sort(scores[0], descending=True, out=(sv, si))
print("sorted idx", si.tolist())
print("version counters", values._version > 0, best._version)
