# In-place on a tensor nobody saved is fine; exp saves its output so exp_ then mul_ is not.
import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = x * 3
y.relu_()
y.sum().backward()
print(x.grad)
z = torch.tensor([0.0, 1.0], requires_grad=True)
e = z.exp()
e.mul_(2)
try:
    e.sum().backward()
except RuntimeError as err:
    print(type(err).__name__ + ": " + str(err)[:80])
print(z.grad)
