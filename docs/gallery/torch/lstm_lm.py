# One truncated-BPTT step of an LSTM language model on real PyTorch: the hidden state from
# the previous chunk is carried over through detach(), so backward stops at the chunk edge.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class LanguageModel(nn.Module):
    def __init__(self, vocab=30, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, tokens, state=None):
        h, state = self.lstm(self.embed(tokens), state)
        return self.out(h), state


model = LanguageModel()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
text = torch.randint(0, 30, (2, 13))
state = None
for start in (0, 6):
    inputs, targets = text[:, start : start + 6], text[:, start + 1 : start + 7]
    if state is not None:
        state = tuple(s.detach() for s in state)  # truncate: keep the values, not the graph
    logits, state = model(inputs, state)
    loss = F.cross_entropy(logits.reshape(-1, 30), targets.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"chunk at {start}: loss {loss.item():.4f}")
