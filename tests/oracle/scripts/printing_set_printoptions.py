# set_printoptions(precision=..., sci_mode=...) changes tensor reprs until reset.
import torch

t = torch.tensor([1.0 / 3.0, 2.5, 1e-5])
print(t)
torch.set_printoptions(precision=2)
print(t)
torch.set_printoptions(sci_mode=False)
print(t)
torch.set_printoptions(precision=6)
print(torch.tensor([1.0 / 3.0]))
torch.set_printoptions(profile="default")
print(t)
