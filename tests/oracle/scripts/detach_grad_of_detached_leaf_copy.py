# A detached copy made into a new leaf gets its own grad; the original stays None.
import torch

w = torch.tensor([2.0, 3.0], requires_grad=True)
h = (w * w).detach().requires_grad_(True)
loss = (h * 10).sum()
loss.backward()
print(h.grad, h.is_leaf)
print(w.grad)
out = (w * h).sum()
out.backward()
print(w.grad, h.grad)
