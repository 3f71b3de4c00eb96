# numpy() and from_numpy share memory; torch.tensor(ndarray) copies.
import numpy as np
import torch

t = torch.tensor([1.0, 2.0, 3.0])
n = t.numpy()
n[1] = 20.0
print(t)
t.add_(1)
print(n.tolist())
arr = np.array([1.0, 2.0], dtype=np.float32)
f = torch.from_numpy(arr)
c = torch.tensor(arr)
arr[0] = -5.0
print(f, c)
print(f.dtype, torch.from_numpy(np.array([1, 2])).dtype)
print(torch.as_tensor(arr).untyped_storage().data_ptr() == f.untyped_storage().data_ptr())
