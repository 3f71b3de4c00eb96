# detach() shares storage and the version counter: zeroing the detached copy changes m,
# which PowBackward0 saved for backward, so backward() raises instead of using wrong values.
import torch

m = torch.arange(5.0, requires_grad=True)
n = m**2
o = m.detach()
o.zero_()
n.sum().backward()
print(m.grad)
