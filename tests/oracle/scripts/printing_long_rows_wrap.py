# Rows longer than the line width (80) wrap with continuation indentation.
import torch

print(torch.arange(30.0))
print(torch.arange(40))
print(torch.arange(20.0).view(2, 10) / 7)
print(torch.arange(25.0, requires_grad=True))
print(torch.full((2, 14), 1.5))
