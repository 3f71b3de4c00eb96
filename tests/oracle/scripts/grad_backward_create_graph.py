# backward(create_graph=True) leaves a differentiable x.grad (gradient penalty pattern).
import torch

x = torch.tensor([1.0, 3.0], requires_grad=True)
y = (x**2 * 2).sum()
y.backward(create_graph=True)
print(x.grad)
print(x.grad.requires_grad)
penalty = (x.grad**2).sum()
x.grad = None
penalty.backward()
print(x.grad)
