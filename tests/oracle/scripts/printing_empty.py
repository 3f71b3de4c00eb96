# Empty tensors print as tensor([]) with a size= for non-1-D shapes.
import torch

print(torch.tensor([]))
print(torch.zeros(0))
print(torch.zeros(2, 0))
print(torch.tensor([], dtype=torch.int64))
print(torch.zeros(0, 3).shape)
