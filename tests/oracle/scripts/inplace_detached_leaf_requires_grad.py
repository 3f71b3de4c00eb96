# A detached alias that opts into requires_grad is a leaf: in-place on it is refused.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
d = x.detach().requires_grad_()
try:
    d.add_(1)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
with torch.no_grad():
    d.add_(1)
print(x, d._version, x._version)
