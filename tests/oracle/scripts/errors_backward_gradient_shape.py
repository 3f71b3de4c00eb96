# backward(gradient=...) with the wrong shape.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
try:
    y.backward(torch.ones(3))
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
(g,) = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 10.0]))
print(g)
