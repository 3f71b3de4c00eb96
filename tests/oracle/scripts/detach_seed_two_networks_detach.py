# Seed: z = B(A(x).detach()) trains B only; A's parameters keep grad None.
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
z = B(y.detach())
z.backward()
print(z)
print(wa.grad, ba.grad)
print(wb.grad)
print(y.requires_grad, type(y.grad_fn).__name__)
