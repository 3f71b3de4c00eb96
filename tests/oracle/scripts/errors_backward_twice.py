# Backward twice through freed saved tensors.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(x.grad)
