# Integer arithmetic: floor division, remainder, true division and comparisons.
import torch

a = torch.tensor([7, -7, 5])
b = torch.tensor([2, 2, 5])
print(a // b)
print(a % b)
print(a / b)
print(a == b, (a > 0).sum(), (a > 0).dtype)
print(a.sum(), a.sum().dtype, a.float().mean())
print(torch.tensor([1, 2, 3]).max(), torch.tensor([1, 2, 3]).argmax())
