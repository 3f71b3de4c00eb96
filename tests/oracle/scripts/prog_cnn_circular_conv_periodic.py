# Convolutions on periodic data (a ring of sensors, a torus-shaped grid): circular padding
# wraps the edges around, so a shifted input gives the same shifted output
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(10)
ring = torch.arange(8.0).view(1, 1, 8)
print(F.pad(ring, (2, 3), mode="circular"))
print(F.pad(ring, (-1, 2), mode="circular"))
conv = nn.Conv1d(1, 2, kernel_size=3, padding=1, padding_mode="circular")
print(conv)
y = conv(ring)
shifted = conv(torch.roll(ring, 3, dims=-1))
print(torch.allclose(torch.roll(y, 3, dims=-1), shifted))
grid = torch.randn(1, 2, 5, 5, requires_grad=True)
conv2 = nn.Conv2d(2, 4, 3, padding=1, padding_mode="circular")
opt = torch.optim.SGD(conv2.parameters(), lr=0.05)
target = torch.randn(1, 4, 5, 5)
for step in range(3):
    loss = F.mse_loss(conv2(grid), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.4f}")
padded = F.pad(grid, (1, 1, 2, 0), mode="circular")
print(type(padded.grad_fn).__name__, padded.shape, padded._version)
padded.sum().backward()
print(grid.grad[0, 0])
try:
    F.pad(ring, (9, 0), mode="circular")
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
