# cat / stack shape errors.
import torch

try:
    torch.cat([torch.ones(2, 3), torch.ones(2, 2)])
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    torch.stack([torch.ones(2), torch.ones(3)])
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(torch.cat([torch.ones(1, 2), torch.zeros(1, 2)], dim=1))
