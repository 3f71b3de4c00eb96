# A saved view shares its base's version counter: modifying the base breaks backward.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = x * 1
b = a[0:2]
c = b * b
a.add_(1)
print(a._version, b._version)
try:
    c.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e).split(" Hint:")[0])
