# nn.Parameter is a leaf that requires grad; its repr says "Parameter containing:".
import torch
import torch.nn as nn

p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p)
print(p.requires_grad, p.is_leaf, type(p).__name__, isinstance(p, torch.Tensor))
q = nn.Parameter(torch.tensor([3.0]), requires_grad=False)
print(q)
y = p * 2
print(y)
(p * p).sum().backward()
print(p.grad)
