# Parameter bookkeeping: a per-layer table, totals, trainable counts, buffers and memory.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(28 * 28, 128),
    nn.ReLU(),
    nn.Dropout(0.2),
    nn.Linear(128, 64),
    nn.ReLU(),
    nn.Linear(64, 10),
)
model[0].requires_grad_(False)
print(f"{'name':<12}{'shape':<16}{'count':>8}  trainable")
for name, p in model.named_parameters():
    print(f"{name:<12}{str(tuple(p.shape)):<16}{p.numel():>8}  {p.requires_grad}")
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"total={total} trainable={trainable} frozen={total - trainable}")
print("bytes", sum(p.numel() * p.element_size() for p in model.parameters()))
print("modules", len(list(model.modules())), "children", len(list(model.children())))
print([type(m).__name__ for m in model.children() if not list(m.parameters())])
