# x.data *= 100 silently gives a wrong grad; the same through detach() raises.
import torch

x = torch.ones(1, requires_grad=True)
y = x * x
x.data *= 100
y.backward()
print(x.grad)
print(x._version)

x = torch.ones(1, requires_grad=True)
y = x * x
z = x.detach()
z *= 100
print(x._version)
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(x.grad)
