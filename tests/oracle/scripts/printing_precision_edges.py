# Formatting edge cases: many integer digits, tiny fractions, mixed signs.
import torch

print(torch.tensor([1234.5678]))
print(torch.tensor([10000.0, 1.0]))
print(torch.tensor([99999.0, 0.5]))
print(torch.tensor([0.001, 0.01]))
print(torch.tensor([-1.5, 1e-3]))
print(torch.tensor([3.14159, -2.71828, 100.0]))
print(torch.tensor([100000000]))
print(torch.tensor([-5, 12345]))
print(torch.tensor([[0.5, -0.25], [1e3, 2e3]]))
print(torch.tensor([1e-4, 5.0]))
