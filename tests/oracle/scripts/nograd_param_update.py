# In-place update of a leaf under no_grad is allowed, bumps _version, keeps requires_grad.
import torch

w = torch.tensor([1.0, -1.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
print(w._version)
with torch.no_grad():
    w -= 0.1 * w.grad
print(w)
print(w._version, w.is_leaf, w.requires_grad, w.grad_fn)
w.grad.zero_()
(w * 3).sum().backward()
print(w.grad)
