# A saved non-leaf later detached in place cannot be unpacked by backward.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y * y
y.detach_()
print(y.requires_grad, y.grad_fn, type(z.grad_fn).__name__)
try:
    z.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(x.grad)
