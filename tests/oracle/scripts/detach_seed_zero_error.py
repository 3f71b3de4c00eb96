# Seed: zeroing a detached alias of a saved tensor makes backward raise.
import torch

m = torch.arange(5.0, requires_grad=True)
n = m**2
o = m.detach()
o.zero_()
print(m)
print(m._version, o._version)
try:
    n.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(m.grad)
