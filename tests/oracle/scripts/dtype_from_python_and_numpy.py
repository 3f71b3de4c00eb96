# dtype inference from Python values, tuples and numpy scalars/arrays.
import numpy as np
import torch

print(torch.tensor([True, 2]).dtype, torch.tensor([1, 2.0]).dtype, torch.tensor((1, 2)).dtype)
print(torch.tensor(np.float64(1.5)).dtype, torch.tensor(np.array([1.0, 2.0])).dtype)
print(torch.tensor(np.array([1, 2], dtype=np.int32)).dtype, torch.tensor(np.float32(2)).dtype)
print(torch.as_tensor([1, 2]).dtype, torch.as_tensor([1.0]).dtype)
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.float32))
print(torch.tensor(np.array([1.5, 2.5])))
