# Character-level language model with a projected LSTM (proj_size), as in LSTMP acoustic
# and language models: the hidden state is projected down before it feeds back
import torch
from torch import nn

torch.manual_seed(3)
text = "hello world, hello detach"
chars = sorted(set(text))
idx = torch.tensor([chars.index(c) for c in text])
V = len(chars)


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 8)
        self.lstm = nn.LSTM(8, 16, num_layers=2, proj_size=6, batch_first=True)
        self.head = nn.Linear(6, V)

    def forward(self, x, state=None):
        out, state = self.lstm(self.emb(x), state)
        return self.head(out), state


model = CharLM()
print(model)
print([(n, tuple(p.shape)) for n, p in model.lstm.named_parameters()][:5])
opt = torch.optim.Adam(model.parameters(), lr=0.03)
x, y = idx[:-1].unsqueeze(0), idx[1:].unsqueeze(0)
for step in range(6):
    logits, (h, c) = model(x)
    loss = nn.functional.cross_entropy(logits.squeeze(0), y.squeeze(0))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} h {tuple(h.shape)} c {tuple(c.shape)}")
print(f"{model.lstm.weight_hr_l1.grad.norm():.4f}", type(logits.grad_fn).__name__)
with torch.no_grad():
    ch, state, out = idx[:1].unsqueeze(0), None, "h"
    for _ in range(8):
        logits, state = model(ch, state)
        ch = logits[:, -1].argmax(-1, keepdim=True)
        out += chars[ch.item()]
print(repr(out))
