import torch
from torch.autograd import gradcheck


class Softsign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs()) ** 2


torch.manual_seed(0)
x = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
print(gradcheck(Softsign.apply, (x,)))
print(gradcheck(Softsign.apply, (x,), eps=1e-6, atol=1e-4))
y = torch.randn(3, 2, dtype=torch.double, requires_grad=True)
print(gradcheck(lambda a, b: torch.tanh(a @ b), (x, y)))
try:
    gradcheck(Softsign.apply, (x.detach(),))
except ValueError as e:
    print("ValueError:", e)
