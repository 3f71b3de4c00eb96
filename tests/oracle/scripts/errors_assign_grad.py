# Assigning .grad checks size and dtype; a matching tensor is accepted as-is.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
for label, g in [("size", torch.zeros(3)), ("dtype", torch.zeros(2, dtype=torch.float64))]:
    try:
        x.grad = g
    except RuntimeError as e:
        print(label, type(e).__name__ + ": " + str(e))
g = torch.tensor([5.0, 6.0])
x.grad = g
print(x.grad is g, x.grad)
(x * 1).sum().backward()
print(x.grad, g)
