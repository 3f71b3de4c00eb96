# autograd.grad with grad_outputs, multiple outputs, and inputs given as a tuple.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
out1 = x * y
out2 = (x**2).sum()
gx, gy = torch.autograd.grad([out1.sum(), out2], (x, y))
print(gx, gy)
(gx,) = torch.autograd.grad(x * x, x, grad_outputs=torch.ones(2))
print(gx)
print(x.grad, y.grad)
