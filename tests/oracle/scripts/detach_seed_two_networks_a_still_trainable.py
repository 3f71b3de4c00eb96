# Seed: only the detach() form leaves A trainable by another loss; detach_() cuts y for good.
import torch

wa = torch.tensor([1.0, -2.0], requires_grad=True)
wb = torch.tensor([3.0, 0.5], requires_grad=True)


def A(x):
    return x * wa


def B(y):
    return (y * wb).sum()


x = torch.tensor([1.0, 2.0])
y = A(x)
B(y.detach()).backward()
print(wa.grad, wb.grad)
y.sum().backward()
print(wa.grad, wb.grad)

y2 = A(x)
y2.detach_()
wb.grad = None
B(y2).backward()
print(wb.grad)
try:
    y2.sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
