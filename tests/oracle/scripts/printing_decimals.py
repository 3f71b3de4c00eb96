# Mixed integral/fractional float values: "1." vs "1.0000" formatting and rounding.
import torch

print(torch.tensor([1.0, 2.0, 3.0]))
print(torch.tensor([1.0, 2.5]))
print(torch.tensor([0.1, 0.25, 0.333333]))
print(torch.tensor([1.23456789]))
print(torch.tensor([-0.0, 0.0]))
print(torch.tensor([100.0, -100.0, 5.0]))
print(torch.tensor([0.99999]))
print(torch.tensor([2.0]) / 3)
