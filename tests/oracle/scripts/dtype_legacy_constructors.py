# torch.Tensor / FloatTensor / LongTensor constructors (shape-only for uninitialised ones).
import torch

print(torch.Tensor([1, 2]))
print(torch.Tensor(2, 3).shape, torch.Tensor(2, 3).dtype)
print(torch.FloatTensor([[1.5]]))
print(torch.LongTensor([1, 2]))
print(torch.tensor([1, 2]).type(torch.FloatTensor))
print(isinstance(torch.ones(1), torch.Tensor), isinstance(torch.ones(1), torch.FloatTensor))
print(isinstance(torch.ones(1, dtype=torch.int64), torch.FloatTensor))
