# A graph of 10,000 backward functions: an RNN unrolled for 2,500 steps, each step an
# MmBackward0 for h @ W, one for x[t] @ U, an AddBackward0 and a TanhBackward0. Drawn in
# full it would be ~8,000 inches tall; collapsed, the repeated step is drawn once, ×2499.
import torch

torch.manual_seed(0)
W = (torch.randn(4, 4) * 0.5).requires_grad_()
U = (torch.randn(3, 4) * 0.5).requires_grad_()
xs = torch.randn(2500, 1, 3)
h = torch.zeros(1, 4)

for t in range(2500):
    h = torch.tanh(h @ W + xs[t] @ U)

loss = h.sum()
loss.backward()
print(f"loss {loss.item():.4f}  W.grad norm {W.grad.norm():.4f}")
