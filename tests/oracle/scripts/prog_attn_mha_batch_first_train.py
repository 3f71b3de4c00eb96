"""Training a model whose only mixing layer is nn.MultiheadAttention (batch_first, dropout in
train mode), to copy the mean of its input sequence."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(4, 2, dropout=0.1, batch_first=True)
        self.out = nn.Linear(4, 4)

    def forward(self, x):
        y, w = self.attn(x, x, x, need_weights=False)
        return self.out(y), w


model = Mixer()
x = torch.randn(8, 5, 4)
target = x.mean(1, keepdim=True).expand(-1, 5, -1)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(12):
    pred, w = model(x)
    loss = (pred - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print(w)
model.eval()
print(f"{(model(x)[0] - target).pow(2).mean().item():.4f}")
