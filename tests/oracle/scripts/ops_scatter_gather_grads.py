"""gather/scatter/index_add gradients and their grad_fns, saved attributes included."""

import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_(True)
idx = torch.tensor([[2, 0], [1, 1]])
g = x.gather(1, idx)
print(g, type(g.grad_fn).__name__, g.grad_fn._saved_dim, g.grad_fn._saved_index)
g.sum().backward()
print(x.grad)
src = torch.tensor([[10.0, 20.0], [30.0, 40.0]], requires_grad=True)
s = torch.zeros(2, 3).scatter(1, idx, src)
print(s, type(s.grad_fn).__name__)
(s * torch.arange(6.0).reshape(2, 3)).sum().backward()
print(src.grad)
a = torch.zeros(3, 2).index_add(0, torch.tensor([0, 2, 0]), torch.ones(3, 2), alpha=2)
print(a)
d = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(d.diagonal(), type(d.diag().grad_fn).__name__, type(d.diagonal().grad_fn).__name__)
print(torch.cumsum(d, dim=0), d.cumprod(1).grad_fn._saved_dim)
