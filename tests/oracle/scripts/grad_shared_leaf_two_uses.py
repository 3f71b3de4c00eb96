# A leaf used in several places accumulates every path's gradient in one backward.
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x + 2 * x + x
y.backward()
print(y)
print(x.grad)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.view(2, 1) * a
b.sum().backward()
print(a.grad)
