# A hand-written exact GELU with torch.erf, checked against F.gelu: values, gradients,
# grad_fn names, and the second derivative a gradient penalty would take.
import math

import torch
import torch.nn.functional as F

x = torch.linspace(-3, 3, 7, requires_grad=True)
manual = 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
builtin = F.gelu(x)
print(manual)
print(type(manual.grad_fn).__name__, type(manual.grad_fn.next_functions[1][0]).__name__)
print(torch.allclose(manual, builtin, atol=1e-6))
(g,) = torch.autograd.grad(manual.sum(), x, create_graph=True)
print(g)
print(type(g.grad_fn).__name__)
(h,) = torch.autograd.grad(g.sum(), x)
print(h)
y = x.detach().clone()
y.erf_()
print(y, torch.special.erf(x.detach()).equal(y))
print(torch.erfinv(torch.erf(torch.tensor([-0.5, 0.0, 0.9]))))
print(torch.erfc(torch.tensor([0, 1, 2])))
