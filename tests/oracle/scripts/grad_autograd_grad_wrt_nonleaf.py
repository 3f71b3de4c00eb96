# autograd.grad can differentiate w.r.t. an intermediate tensor, and refuses constant outputs.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = (y**2).sum()
(gy,) = torch.autograd.grad(z, y, retain_graph=True)
print(gy)
(gx,) = torch.autograd.grad(z, x)
print(gx)
try:
    torch.autograd.grad(torch.ones(2).sum(), x)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
