# More formatting edges: negative sci, int-valued large floats, nan/inf mixed with others.
import torch

print(torch.tensor([-1e10, 1.0]))
print(torch.tensor([100000.0, 200000.0]))
print(torch.tensor([1e8, 1.0]))
print(torch.tensor([1e9, 2.0]))
print(torch.tensor([float("nan"), 1.0, 2.0]))
print(torch.tensor([float("inf"), 0.5]))
print(torch.tensor([float("-inf"), 1e10]))
print(torch.tensor([0.1, 0.2], dtype=torch.float64) + 0.0001)
print(torch.tensor([2**40, -3]))
print(torch.tensor([1e-3, 1e3]))
