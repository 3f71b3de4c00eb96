# max/min along a dim return (values, indices) namedtuples with their own repr.
import torch

x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
r = x.max(dim=1)
print(r)
print(type(r).__name__, r.values, r.indices)
v, i = x.min(dim=0)
print(v, i)
r.values.sum().backward()
print(x.grad)
print(x.argmax(), x.argmax(dim=0))
