# Integer and boolean tensors print without decimal points and pad columns.
import torch

print(torch.tensor([1, 2, 3]))
print(torch.tensor([[1, -20], [300, 4]]))
print(torch.arange(5))
print(torch.tensor([True, False, True]))
print(torch.tensor([[True], [False]]))
x = torch.tensor([1.0, 5.0, 3.0])
print(x > 2)
print(torch.tensor([1, 2], dtype=torch.int32))
print(torch.tensor([1.0, 2.0]).long())
