# transpose / t / expand / permute are views; shapes, strides and contiguity.
import torch

a = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
t = a.t()
tr = a.transpose(0, 1)
e = torch.tensor([1.0, 2.0, 3.0]).expand(2, 3)
p = a.unsqueeze(0).permute(2, 0, 1)
for name, v in [("t", t), ("transpose", tr), ("expand", e), ("permute", p)]:
    print(name, tuple(v.shape), v.stride(), v.is_contiguous())
print(t._base is a, tr._base is a, p._base is a)
t[0, 1] = 100.0
print(a)
print(t.contiguous().is_contiguous(), t.contiguous()._base is None)
print(a.stride(), a.size(), a.size(1), a.dim(), a.numel())
