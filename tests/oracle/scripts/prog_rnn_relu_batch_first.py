"""A ReLU RNN with batch_first input and a learned initial hidden state."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(2, 4, nonlinearity="relu", batch_first=True, num_layers=2)
        self.h0 = nn.Parameter(torch.zeros(2, 1, 4))

    def forward(self, x):
        h0 = self.h0.expand(-1, x.shape[0], -1).contiguous()
        out, h = self.rnn(x, h0)
        return out[:, -1], h


net = Net()
x = torch.randn(3, 5, 2)
y, h = net(x)
loss = y.pow(2).sum() + h.sum()
loss.backward()
print(net.rnn)
print(type(y.grad_fn).__name__, y.shape, h.shape)
print(f"{loss.item():.4f}", f"{net.h0.grad.abs().sum().item():.4f}")
for n, p in net.named_parameters():
    print(n, f"{p.grad.norm().item():.5f}")
