# Integer tensors cannot require grad (both the factory kwarg and the setter).
import torch

try:
    torch.tensor([1, 2, 3], requires_grad=True)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
t = torch.tensor([1, 2, 3])
try:
    t.requires_grad = True
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    t.requires_grad_()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(t.requires_grad, t.dtype)
