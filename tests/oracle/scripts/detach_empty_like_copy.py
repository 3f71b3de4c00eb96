# empty_like(p).copy_(p) is a differentiable copy (grad_fn from copy_).
import torch

p = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
w = torch.empty_like(p).copy_(p)
print(w.requires_grad, w.is_leaf, type(w.grad_fn).__name__)
print(w.grad_fn.name())
print(w)
(w * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(p.grad)
e = torch.empty_like(p)
print(e.shape, e.dtype, e.requires_grad)
