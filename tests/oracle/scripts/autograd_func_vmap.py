import torch
from torch.func import vmap

a = torch.arange(12.0).reshape(4, 3)
b = torch.ones(4, 3)
print(vmap(torch.dot)(a, b))
print(vmap(lambda r, s: r * s, in_dims=(0, None))(a, torch.tensor(2.0)))
print(vmap(lambda col: col.sum(), in_dims=1)(a))
print(vmap(lambda r: r * 2, out_dims=1)(a).shape)
print(vmap(lambda r: (r.sum(), r.max()))(a))
print(vmap(vmap(lambda v: v * 10))(a[:2]))
