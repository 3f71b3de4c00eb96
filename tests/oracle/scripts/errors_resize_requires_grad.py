# resize_ is refused on a tensor that requires grad; allowed (and a version bump) otherwise.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    x.resize_(4)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
p = torch.tensor([1.0, 2.0])
p.resize_(1)
print(p, p._version)
