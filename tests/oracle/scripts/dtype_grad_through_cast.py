# Gradients flow through float<->double casts (ToCopyBackward0) but not into ints.
import torch

x = torch.tensor([1.5, 2.5], requires_grad=True)
y = x.double() * 2
print(y.dtype, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad, x.grad.dtype)
k = x.long()
print(k.requires_grad, k.grad_fn)
z = x.to(torch.float64)
print(type(z.grad_fn).__name__)
