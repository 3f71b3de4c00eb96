import torch
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)
x = torch.randn(3, dtype=torch.double, requires_grad=True)
w = torch.randn(3, dtype=torch.double, requires_grad=True)
print(gradgradcheck(lambda x, w: (x * w).sin(), (x, w)))
# gradgradcheck draws its random grad_outputs from the global generator
print(torch.randn(2))
go = torch.ones(3, dtype=torch.double, requires_grad=True)
print(gradgradcheck(lambda x: x.exp() * x, (x,), (go,)))
print(gradcheck(lambda x: (x**2).sum(), x))
