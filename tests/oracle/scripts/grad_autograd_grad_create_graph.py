# create_graph=True makes the gradient differentiable: second and third derivatives.
import torch

x = torch.tensor([2.0, -1.0], requires_grad=True)
y = (x**3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
print(g.requires_grad, type(g.grad_fn).__name__)
(g2,) = torch.autograd.grad(g.sum(), x, create_graph=True)
print(g2)
(g3,) = torch.autograd.grad(g2.sum(), x)
print(g3)
s = torch.tensor(0.5, requires_grad=True)
(ds,) = torch.autograd.grad(torch.sin(s), s, create_graph=True)
(dds,) = torch.autograd.grad(ds, s)
print(round(ds.item(), 5), round(dds.item(), 5))
