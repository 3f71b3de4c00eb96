# Detaching one of two paths: only the attached path contributes to the gradient.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
z_full = (y * x).sum()
z_cut = (y.detach() * x).sum()
(gf,) = torch.autograd.grad(z_full, x)
(gc,) = torch.autograd.grad(z_cut, x)
print(gf)
print(gc)
s = x.detach() + x
s.sum().backward()
print(x.grad)
