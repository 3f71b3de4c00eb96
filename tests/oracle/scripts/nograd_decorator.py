# no_grad also works as a decorator (with and without parentheses semantics of the class).
import torch


@torch.no_grad()
def scale(t):
    return t * 10


x = torch.tensor([1.0], requires_grad=True)
y = scale(x)
print(y, y.requires_grad)
print(torch.is_grad_enabled())
print(scale.__name__)
