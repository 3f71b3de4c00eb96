"""An LSTM encoder with additive attention pooling over its outputs (a classic text model)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AttnLSTM(nn.Module):
    def __init__(self, d_in, d_h, n_cls):
        super().__init__()
        self.lstm = nn.LSTM(d_in, d_h, batch_first=True)
        self.score = nn.Linear(d_h, 1)
        self.fc = nn.Linear(d_h, n_cls)

    def forward(self, x):
        out, _ = self.lstm(x)
        w = F.softmax(self.score(torch.tanh(out)).squeeze(-1), dim=1)
        ctx = (w.unsqueeze(-1) * out).sum(1)
        return self.fc(ctx), w


model = AttnLSTM(4, 8, 3)
x = torch.randn(5, 6, 4)
y = torch.tensor([0, 1, 2, 1, 0])
opt = torch.optim.Adam(model.parameters(), lr=0.03)
for _ in range(10):
    logits, w = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"final loss {loss.item():.4f}")
print(w[0].detach())
print(type(logits.grad_fn).__name__, type(w.grad_fn).__name__)
