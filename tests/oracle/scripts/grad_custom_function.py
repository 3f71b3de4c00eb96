# A custom torch.autograd.Function with ctx.save_for_backward.
import torch


class MyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x > 0).float() * 10


x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
y = MyRelu.apply(x)
print(y, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
