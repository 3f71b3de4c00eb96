"""A character-level LSTM language model on a tiny text: a few Adam steps, then greedy sampling."""

import torch
import torch.nn as nn

torch.manual_seed(0)
text = "hello world, hello torch. "
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
V = len(chars)


class CharLM(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.lstm = nn.LSTM(vocab, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(x, state)
        return self.head(out), state


model = CharLM(V, 16)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
loss_fn = nn.CrossEntropyLoss()
onehot = torch.eye(V)
inputs = onehot[data[:-1]].unsqueeze(0)
targets = data[1:]
for step in range(30):
    logits, _ = model(inputs)
    loss = loss_fn(logits.view(-1, V), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")

with torch.no_grad():
    idx = stoi["h"]
    state = None
    out = "h"
    for _ in range(12):
        logits, state = model(onehot[idx].view(1, 1, V), state)
        idx = int(logits[0, -1].argmax())
        out += chars[idx]
print(repr(out))
print(model)
