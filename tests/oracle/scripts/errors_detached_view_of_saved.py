# Zeroing a detached view of a saved tensor is caught; doing it through .data is not.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = x.sigmoid()
a[1:].detach().zero_()
try:
    a.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e).split(" Hint:")[0])
y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = y.sigmoid()
s.data[1:].zero_()
s.sum().backward()
print(s, y.grad)
