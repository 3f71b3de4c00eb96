# Forward-AD misuse: make_dual without a level, and integer primals.
import torch
import torch.autograd.forward_ad as fwAD

try:
    fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]))
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
with fwAD.dual_level():
    try:
        fwAD.make_dual(torch.tensor([1]), torch.tensor([1]))
    except ValueError as e:
        print(type(e).__name__ + ": " + str(e))
    try:
        fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1]))
    except ValueError as e:
        print(type(e).__name__ + ": " + str(e))
