# torch.autograd.grad returns grads without touching .grad; allow_unused gives None.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
u = torch.tensor([5.0], requires_grad=True)
y = (x * w).sum()
gx, gw = torch.autograd.grad(y, [x, w], retain_graph=True)
print(gx, gw)
print(x.grad, w.grad)
gx, gu = torch.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True)
print(gx, gu)
try:
    torch.autograd.grad(y, [u])
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
