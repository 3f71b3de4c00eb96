# Gradients accumulate into .grad across backward calls until zeroed.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x * x).sum().backward()
print(x.grad)
(x * 3).sum().backward()
print(x.grad)
x.grad.zero_()
print(x.grad)
(x**3).sum().backward()
print(x.grad)
x.grad = None
(x * 2).sum().backward()
print(x.grad)
