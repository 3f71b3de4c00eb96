# Modifying a saved output in place: the message names the grad_fn and versions.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
b = a * 2
c = b * b
b.mul_(3)
b.mul_(3)
try:
    c.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
