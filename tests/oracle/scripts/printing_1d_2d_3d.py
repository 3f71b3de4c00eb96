# repr of 1-D, 2-D and 3-D float tensors (column alignment, blank line between blocks).
import torch

print(torch.tensor([1.0, 2.5, -3.0]))
print(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(torch.tensor([[1.5, -20.0, 3.0], [100.0, 0.25, -0.5]]))
print(torch.arange(12.0).view(2, 2, 3))
print(torch.zeros(2, 1, 2))
print(torch.tensor([[[1.0]]]))
print(torch.ones(1, 3))
