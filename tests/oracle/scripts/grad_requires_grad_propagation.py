# requires_grad propagates through ops if any input requires it, and requires_grad_ chains.
import torch

a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0])
print((a + b).requires_grad, (b + b).requires_grad, (a.detach() + b).requires_grad)
c = b.requires_grad_()
print(c is b, b.requires_grad, b.is_leaf)
a.requires_grad_(False)
print(a.requires_grad, (a * 2).requires_grad)
d = torch.zeros(2).requires_grad_(True)
print(d)
