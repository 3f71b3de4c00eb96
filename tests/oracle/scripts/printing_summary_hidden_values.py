# Summarised tensors format only the shown edge items (a hidden huge value changes nothing).
import torch

x = torch.zeros(2000)
x[1000] = 1e6
print(x)
y = torch.arange(1500.0) / 7
print(y)
z = torch.ones(1001, dtype=torch.bool)
print(z)
w = torch.arange(1200.0, requires_grad=True)
print(w * 1)
