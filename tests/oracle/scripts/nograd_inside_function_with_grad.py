# Part of a computation under no_grad: that branch is a constant for backward.
import torch

w = torch.tensor([2.0], requires_grad=True)


def f(w):
    with torch.no_grad():
        scale = w * 10
    return w * scale


y = f(w)
y.backward()
print(y, w.grad)
print(torch.is_grad_enabled())
