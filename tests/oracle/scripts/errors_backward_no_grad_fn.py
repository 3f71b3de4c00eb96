# backward on a tensor that does not require grad.
import torch

x = torch.tensor([1.0, 2.0])
y = (x * 2).sum()
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
w = torch.tensor([1.0], requires_grad=True)
z = (w * 2).detach().sum()
try:
    z.backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
