# A detached tensor can opt back in with requires_grad_(); it becomes its own leaf.
import torch

a = torch.tensor([3.0], requires_grad=True)
d = a.detach().requires_grad_()
print(d.requires_grad, d.is_leaf)
(d**2).sum().backward()
print(d.grad, a.grad)
e = (a * 2).detach()
e.requires_grad = True
(e * a).sum().backward()
print(e.grad, a.grad)
