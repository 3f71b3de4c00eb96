# manual_seed then random factories: print only RNG-independent facts.
import torch

g = torch.manual_seed(0)
print(type(g).__name__)
a = torch.randn(3, 4)
b = torch.rand(2, requires_grad=True)
c = torch.randint(0, 10, (5,))
d = torch.randn(2, 2, dtype=torch.float64)
print(a.shape, a.dtype, a.requires_grad)
print(b.shape, b.requires_grad, b.is_leaf)
print(c.shape, c.dtype, bool(((c >= 0) & (c < 10)).all()))
print(d.dtype, bool((b >= 0).all() and (b < 1).all()))
print(torch.randn(()).shape, torch.randn_like(a).shape)
