import torch
from torch.autograd import gradcheck


class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * x * grad  # should be 2 * x


x = torch.tensor([1.0, 2.0, 0.5], dtype=torch.double, requires_grad=True)
print(gradcheck(WrongSquare.apply, (x,), raise_exception=False))
try:
    gradcheck(WrongSquare.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__)
    print(e)
