# Tangents through indexing, view, transpose, sum and mean.
import torch
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    x = fwAD.make_dual(
        torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    )
    for name, out in [
        ("x[0]", x[0]),
        ("x.t()", x.t()),
        ("view", x.view(4)),
        ("sum", x.sum()),
        ("mean0", x.mean(0)),
        ("x*x", x * x),
        ("relu", torch.relu(x - 2.5)),
    ]:
        print(name, fwAD.unpack_dual(out).tangent)
