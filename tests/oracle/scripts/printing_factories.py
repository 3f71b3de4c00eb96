# Factory functions and their printed values.
import torch

print(torch.arange(0, 1, 0.25))
print(torch.linspace(0, 1, 5))
print(torch.eye(3))
print(torch.full((2, 2), 7.0), torch.full((2,), True))
print(torch.zeros(2, 3, dtype=torch.bool))
print(torch.ones_like(torch.tensor([1, 2])), torch.zeros_like(torch.ones(2), requires_grad=True))
print(torch.arange(2, 11, 3), torch.arange(5, 0, -2))
print(torch.empty(3, 2).shape, torch.ones(2, 2, dtype=torch.float64))
