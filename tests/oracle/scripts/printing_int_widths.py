# Integer and int-valued float column widths with negatives and mixed magnitudes.
import torch

print(torch.tensor([[-1, 10], [100, -1000]]))
print(torch.tensor([[-1.0, 10.0], [100.0, -1000.0]]))
print(torch.tensor([[0.5, -10.0], [100.25, 3.0]]))
print(torch.tensor([-0.5]))
print(torch.tensor([[1], [22], [333]]))
print(torch.tensor([1e5, -1e5]))
