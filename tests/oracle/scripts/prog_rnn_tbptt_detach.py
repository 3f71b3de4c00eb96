"""Truncated backprop through time: an LSTM over a long sequence in chunks, the hidden state
detached between chunks so each backward stops at the chunk boundary."""

import torch
import torch.nn as nn

torch.manual_seed(0)
seq = torch.randn(24, 2, 3)
target = seq.sum(-1, keepdim=True) * 0.5
lstm = nn.LSTM(3, 8)
head = nn.Linear(8, 1)
params = list(lstm.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.05)
state = None
for start in range(0, 24, 6):
    chunk = seq[start : start + 6]
    if state is not None:
        state = tuple(s.detach() for s in state)
        print("state leaf:", state[0].is_leaf, state[0].grad_fn, state[0].requires_grad)
    out, state = lstm(chunk, state)
    loss = (head(out) - target[start : start + 6]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"chunk {start // 6} loss {loss.item():.4f} h-grad_fn {type(state[0].grad_fn).__name__}")
print(f"{lstm.weight_hh_l0.grad.norm().item():.4f}")
