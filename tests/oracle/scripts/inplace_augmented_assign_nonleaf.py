# Augmented assignment on a non-leaf is in place: same object, new grad_fn, version bump.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
before = y
y += 1
y *= x
print(y is before, y._version, type(y.grad_fn).__name__)
z = x * 1
z = z + 1
print(z._version, type(z.grad_fn).__name__)
y.sum().backward()
print(x.grad)
