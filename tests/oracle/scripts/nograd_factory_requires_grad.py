# Factory functions with requires_grad=True are not affected by no_grad.
import torch

with torch.no_grad():
    a = torch.ones(2, requires_grad=True)
    b = torch.zeros(2, 2, requires_grad=True)
    c = torch.tensor([1.0], requires_grad=True)
    d = a * 2
print(a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad)
print(a.is_leaf, d.is_leaf)
