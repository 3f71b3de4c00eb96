# grad_fn class names for arithmetic ops, including reflected scalar forms.
import torch

x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
y = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
ops = {
    "add": x + y,
    "sub": x - y,
    "mul": x * y,
    "div": x / y,
    "neg": -x,
    "pow": x**2,
    "pow_t": x**y,
    "rpow": 2**x,
    "add_scalar": x + 1,
    "radd": 1 + x,
    "mul_scalar": x * 3,
    "rsub": 1 - x,
    "sub_scalar": x - 1,
    "div_scalar": x / 2,
    "rdiv": 1 / y,
    "matmul": x @ y,
    "mm": x.mm(y),
}
for name, t in ops.items():
    print(f"{name:12s} {type(t.grad_fn).__name__}")
