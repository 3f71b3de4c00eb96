# Overwriting a parameter via copy_ under no_grad keeps the leaf and bumps the version.
import torch

w = torch.zeros(2, requires_grad=True)
with torch.no_grad():
    w.copy_(torch.tensor([5.0, 6.0]))
print(w, w._version, w.is_leaf, w.grad_fn)
try:
    w.copy_(torch.tensor([1.0, 1.0]))
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
(w * w).sum().backward()
print(w.grad)
