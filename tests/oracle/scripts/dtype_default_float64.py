# set_default_dtype(float64): new float tensors are float64 and print without a dtype suffix.
import torch

torch.set_default_dtype(torch.float64)
a = torch.tensor([1.5, 2.0])
print(a, a.dtype)
print(torch.ones(2), torch.arange(3.0).dtype)
print(torch.tensor([1.0], dtype=torch.float32))
print(torch.get_default_dtype())
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.5]).dtype)
