# mul saves its inputs: modifying the non-leaf input in place breaks backward.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1
c = b * b
b.add_(1)
print(b._version, type(b.grad_fn).__name__)
try:
    c.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
d = a + 0
e = d + 1
d.add_(1)
e.sum().backward()
print(a.grad)
