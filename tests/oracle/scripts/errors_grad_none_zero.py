# Zeroing a grad that was never populated: Python's own AttributeError on None.
import torch

w = torch.tensor([1.0], requires_grad=True)
try:
    w.grad.zero_()
except AttributeError as e:
    print(type(e).__name__ + ": " + str(e))
(w * 2).sum().backward()
w.grad.zero_()
print(w.grad)
