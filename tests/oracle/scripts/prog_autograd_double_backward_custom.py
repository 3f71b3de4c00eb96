# A custom Function whose backward is itself differentiable (written with torch ops), checked
# with gradcheck and gradgradcheck, then used for a second derivative.
import torch
from torch.autograd import gradcheck, gradgradcheck


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x**2


torch.manual_seed(0)
x = torch.randn(5, dtype=torch.double, requires_grad=True)
print("gradcheck:", gradcheck(Cube.apply, (x,)))
print("gradgradcheck:", gradgradcheck(Cube.apply, (x,)))
y = Cube.apply(x).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
print("first:", [round(v, 4) for v in g.tolist()])
print("second:", [round(v, 4) for v in gg.tolist()])
print("matches 6x:", torch.allclose(gg, 6 * x.detach()))
