# requires_grad=True and grad_fn=<...> suffixes, including on wrapped multi-line reprs.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
print(a)
print(a * 2)
print(a.sum())
print(a.detach())
m = torch.ones(2, 3, requires_grad=True)
print(m)
print(m.t())
print(torch.zeros(3, dtype=torch.float64, requires_grad=True))
print(a.view(2, 1) + a)
print(torch.tensor(1.0, requires_grad=True) * 3)
