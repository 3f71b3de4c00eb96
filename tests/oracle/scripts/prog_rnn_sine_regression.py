"""An RNN learns to predict the next value of a sine wave (MSE, Adam), then forecasts."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)
t = torch.linspace(0, 4 * math.pi, 41)
wave = torch.sin(t)
seq_in = wave[:-1].view(1, -1, 1)
seq_out = wave[1:].view(1, -1, 1)


class SineRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(1, 10, batch_first=True)
        self.out = nn.Linear(10, 1)

    def forward(self, x, h=None):
        y, h = self.rnn(x, h)
        return self.out(y), h


model = SineRNN()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(40):
    pred, _ = model(seq_in)
    loss = nn.functional.mse_loss(pred, seq_out)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1} mse {loss.item():.5f}")
with torch.no_grad():
    x = seq_in[:, -1:, :]
    _, h = model(seq_in)
    preds = []
    for _ in range(5):
        y, h = model(x, h)
        preds.append(round(y.item(), 3))
        x = y
print("forecast", preds)
