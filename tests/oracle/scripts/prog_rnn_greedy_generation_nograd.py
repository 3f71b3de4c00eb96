"""Inference with torch.no_grad(): a GRU generates a sequence step by step, no graph built."""

import torch
import torch.nn as nn

torch.manual_seed(0)
gru = nn.GRU(4, 6)
head = nn.Linear(6, 4)
gru.eval()
with torch.no_grad():
    x = torch.zeros(1, 1, 4)
    h = None
    tokens = []
    for _ in range(8):
        out, h = gru(x, h)
        logits = head(out[-1])
        tok = int(logits.argmax(-1))
        tokens.append(tok)
        x = torch.eye(4)[tok].view(1, 1, 4)
print(tokens)
print(out.requires_grad, out.grad_fn, h.requires_grad)
print(f"{logits.sum().item():.5f}")
out, h = gru(torch.randn(3, 2, 4))
print(out.requires_grad, type(out.grad_fn).__name__)
