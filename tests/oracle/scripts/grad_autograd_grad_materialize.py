# autograd.grad(materialize_grads=True) turns an unused input's None into zeros.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
u = torch.tensor([[5.0, 6.0]], requires_grad=True)
y = (x * x).sum()
gx, gu = torch.autograd.grad(y, [x, u], materialize_grads=True)
print(gx, gu)
