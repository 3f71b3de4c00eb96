# torch.Size behaves like a tuple: concat, slicing, equality, numel.
import torch

s = torch.zeros(2, 3, 4).shape
print(s[1:], s + (5,), (1,) + s, s.numel())
print(s == torch.Size([2, 3, 4]), s == [2, 3, 4], list(reversed(s)))
print(torch.zeros(*s[:2]).shape, torch.zeros(s).shape)
print(torch.ones(2, 3).size(-1), torch.ones(2, 3).view(s[0], -1).shape)
