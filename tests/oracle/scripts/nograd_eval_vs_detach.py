# Evaluating under no_grad vs detaching afterwards: same values, neither keeps a graph.
import torch

w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
x = torch.tensor([1.0, -1.0])
with torch.no_grad():
    a = w @ x
b = (w @ x).detach()
print(a, b, torch.equal(a, b))
print(a.requires_grad, b.requires_grad, a.grad_fn, b.grad_fn)
print(a._version, b._version)
