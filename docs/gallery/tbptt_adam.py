# Truncated BPTT as a training loop: an RNN cell trained with Adam, one optimizer step per
# chunk of 3 time steps. h = h.detach() starts each chunk, so every loss backpropagates
# through its own chunk only; opt.step() then changes the weights in place, after the
# backward that used them: harmless, and not drawn as a write.
import torch
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(3, 4)
head = nn.Linear(4, 1)
opt = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=0.01)
xs = torch.randn(6, 2, 3)
ys = torch.randn(2, 2, 1)
h = torch.zeros(2, 4)
losses = []

for chunk in range(2):
    h = h.detach()  # cut: the previous chunk's graph is done
    for t in range(3 * chunk, 3 * chunk + 3):
        h = cell(xs[t], h)
    loss = (head(h) - ys[chunk]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss)
    print(f"chunk {chunk}: loss {loss.item():.4f}")
