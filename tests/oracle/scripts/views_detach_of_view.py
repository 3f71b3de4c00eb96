# detach() of a view still aliases the same memory and version counter.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * 1
v = y[0]
d = v.detach()
d.mul_(100)
print(y)
print(y._version, v._version, d._version)
print(d._is_view(), d.requires_grad)
