# Truncated backpropagation through time: h = h.detach() every k steps, so the loss of
# one chunk backpropagates through that chunk only, never into earlier steps.
import torch

torch.manual_seed(0)
W = torch.randn(3, 3, requires_grad=True)
U = torch.randn(3, 3, requires_grad=True)
xs = torch.ones(6, 1, 3)
h = torch.zeros(1, 3)
k = 3

for step in range(6):
    if step % k == 0:
        h = h.detach()  # cut: start a new chunk
    h = torch.tanh(h @ W + xs[step] @ U)

loss = h.sum()
loss.backward()
