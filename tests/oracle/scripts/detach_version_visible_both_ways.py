# In-place on the source (under no_grad) is visible through a detached alias and vice versa.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
d = w.detach()
with torch.no_grad():
    w.mul_(3)
print(d, d._version, w._version)
d.add_(1)
print(w, w._version)
print(d.requires_grad, w.requires_grad, w.is_leaf)
