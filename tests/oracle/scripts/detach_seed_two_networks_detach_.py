# Seed: y.detach_() also trains B only, but y itself is now a leaf cut from A for good.
import torch

wa = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
ba = torch.tensor([0.1, -0.1], requires_grad=True)
wb = torch.tensor([2.0, -1.0], requires_grad=True)


def A(x):
    return torch.tanh(x @ wa + ba)


def B(y):
    return (y * wb).sum()


x = torch.tensor([[1.0, 2.0]])
y = A(x)
y.detach_()
print(y.requires_grad, y.is_leaf, y.grad_fn)
z = B(y)
z.backward()
print(z)
print(wa.grad, ba.grad)
print(wb.grad)
