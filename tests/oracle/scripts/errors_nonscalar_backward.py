# backward on a non-scalar needs an explicit gradient.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(x.grad)
