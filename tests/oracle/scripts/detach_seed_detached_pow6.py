# Seed: c = a.detach()**6 contributes nothing to a.grad; only 3*a**2 survives.
import torch

a = torch.ones(20, requires_grad=True)
b = a**3
c = a.detach() ** 6
print(c.requires_grad, c.grad_fn)
i = (b + c).sum()
i.backward()
print(a.grad)

a2 = torch.full((3,), 2.0, requires_grad=True)
(a2**3 + a2.detach() ** 6).sum().backward()
print(a2.grad)
