# Batched matmul (3-D @ 2-D) and vector dot: shapes, grad_fn names, gradients.
import torch

a = torch.arange(12.0).view(2, 2, 3).requires_grad_()
w = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
out = a @ w
print(out.shape, type(out.grad_fn).__name__)
out.sum().backward()
print(w.grad)
print(a.grad[0])
u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = u @ torch.tensor([4.0, 5.0, 6.0])
print(d, type(d.grad_fn).__name__)
