# Gradients of clamp, where, maximum and min (ties and the cut-off points).
import torch

x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
x.clamp(-1.0, 1.0).sum().backward()
print(x.grad)
x.grad = None
torch.where(x > 0, x * x, -x).sum().backward()
print(x.grad)
x.grad = None
torch.maximum(x, torch.tensor([0.0, 0.5, 1.0])).sum().backward()
print(x.grad)
x.grad = None
x.min().backward()
print(x.grad)
