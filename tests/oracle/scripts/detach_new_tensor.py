# new_tensor copies data, keeps dtype, and never carries the graph.
import torch

t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
n = t.new_tensor(t)
print(n, n.dtype, n.requires_grad, n.is_leaf)
print(n.untyped_storage().data_ptr() == t.untyped_storage().data_ptr())
m = t.new_tensor([5, 6])
print(m, m.dtype)
k = t.new_tensor([7.0], requires_grad=True)
print(k)
z = t.new_zeros(2, 3)
print(z)
o = t.new_ones((2,))
print(o)
