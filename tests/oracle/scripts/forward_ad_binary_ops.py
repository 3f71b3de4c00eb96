# Forward-mode tangents through mul/add/div/pow/matmul and a sum.
import torch
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
    y = fwAD.make_dual(torch.tensor([3.0, 4.0]), torch.tensor([0.0, 1.0]))
    c = torch.tensor([10.0, 20.0])
    outs = {
        "mul": x * y,
        "add": x + y,
        "div": x / y,
        "pow": x**3,
        "mulc": x * c,
        "sum": (x * y).sum(),
        "sub": x - 2 * y,
    }
    for name, out in outs.items():
        print(name, fwAD.unpack_dual(out).tangent)
    m = fwAD.make_dual(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.eye(2))
    print(fwAD.unpack_dual(m @ torch.tensor([1.0, -1.0])).tangent)
