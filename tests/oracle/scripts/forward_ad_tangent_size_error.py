# A tangent of the wrong size is refused by make_dual.
import torch
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    try:
        fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0]))
    except RuntimeError as e:
        print(type(e).__name__ + ": " + str(e))
    x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
    try:
        fwAD.make_dual(x, torch.tensor([1.0, 1.0]))
    except RuntimeError as e:
        print(type(e).__name__ + ": " + str(e))
