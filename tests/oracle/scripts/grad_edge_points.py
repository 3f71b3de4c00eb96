# Gradients at awkward points: sqrt(0), x**0, 0**x, x/0 (inf/nan in grads).
import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
torch.sqrt(x).sum().backward()
print(x.grad)
x.grad = None
(x**0).sum().backward()
print(x.grad)
x.grad = None
(x**2).sum().backward()
print(x.grad)
y = torch.tensor([2.0], requires_grad=True)
(1.0 / (y - 2.0)).sum().backward()
print(y.grad)
