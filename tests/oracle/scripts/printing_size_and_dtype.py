# torch.Size and dtype reprs, plus shape accessors.
import torch

t = torch.zeros(2, 3, 4)
print(t.shape)
print(t.size())
print(torch.zeros(()).shape)
print(torch.Size([5]))
print(t.shape[1], t.shape[-1], len(t.shape), list(t.shape), tuple(t.shape))
print(t.shape == (2, 3, 4), isinstance(t.shape, tuple))
print(t.dtype, torch.float32, torch.float64, torch.int64, torch.bool)
print(torch.float, torch.double, torch.long)
print(torch.float32 == torch.float, t.numel(), t.ndim)
