# detach() shares storage and the version counter with its source.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
d = b.detach()
print(b._version, d._version)
d.add_(10)
print(b._version, d._version)
print(b)
print(d)
print(d.requires_grad, d.is_leaf, d.grad_fn)
same = d.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
print("same storage:", same)
d[0] = -1.0
print(b._version, d._version, b[0].item())
