"""A bidirectional two-layer LSTM tagger: per-token tags, CrossEntropy over all tokens."""

import torch
import torch.nn as nn

torch.manual_seed(0)
V, TAGS = 7, 3
onehot = torch.eye(V)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(V, 6, num_layers=2, bidirectional=True, batch_first=True)
        self.tag = nn.Linear(12, TAGS)

    def forward(self, tokens):
        out, (h, c) = self.lstm(onehot[tokens])
        return self.tag(out), h, c


model = Tagger()
tokens = torch.randint(0, V, (4, 5))
tags = tokens % TAGS
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(12):
    scores, h, c = model(tokens)
    loss = nn.functional.cross_entropy(scores.reshape(-1, TAGS), tags.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print(tuple(scores.shape), tuple(h.shape), tuple(c.shape))
print(type(scores.grad_fn).__name__, type(h.grad_fn).__name__)
print(model.lstm)
print(len(list(model.lstm.parameters())), model.lstm.weight_ih_l1_reverse.shape)
