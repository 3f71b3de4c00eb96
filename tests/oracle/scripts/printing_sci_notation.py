# Large/small magnitudes switch to scientific notation for the whole tensor.
import torch

print(torch.tensor([1e10, 1.0]))
print(torch.tensor([1e-5, 1.0]))
print(torch.tensor([123456.0, 1.5]))
print(torch.tensor([1e8, 2e8]))
print(torch.tensor([0.0001, 0.001]))
print(torch.tensor([1e-10]))
print(torch.tensor([[1e20, -3.0], [0.5, 7.0]]))
print(torch.tensor([12345678.0]))
print(torch.tensor([1000.0, 0.5]))
