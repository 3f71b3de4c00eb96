# Seed: the same zeroing through .data is invisible to autograd: a silently wrong gradient.
import torch

m = torch.arange(5.0, requires_grad=True)
n = m**2
o = m.data
o.zero_()
print(m)
print(m._version, o._version)
n.sum().backward()
print(m.grad)
