"""In-place forms of the unary ops: same values as out of place, the op's grad_fn, and on a
view the base's history becomes CopySlices."""

import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
for name in [
    "sin_",
    "cos_",
    "tan_",
    "exp_",
    "log_",
    "sqrt_",
    "rsqrt_",
    "log1p_",
    "expm1_",
    "sigmoid_",
    "tanh_",
    "abs_",
    "neg_",
    "reciprocal_",
    "floor_",
    "round_",
    "sign_",
]:
    y = x * 1
    getattr(y, name)()
    ref = getattr(x.detach(), name[:-1])()
    print(f"{name:12s} {type(y.grad_fn).__name__:20s}", torch.allclose(y.detach(), ref))
base = torch.ones(2, 3, requires_grad=True) * 1
base[0].sin_()
print(type(base.grad_fn).__name__, base.grad_fn.name())
base.sum().backward()
z = torch.tensor([1.0, 4.0])
print(z.sqrt_(), z._version, z.clamp_(min=1.5), torch.exp_(torch.zeros(2)))
