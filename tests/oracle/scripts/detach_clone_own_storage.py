# clone() is differentiable, owns its storage and its own version counter.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
c = a.clone()
print(c.requires_grad, c.is_leaf, type(c.grad_fn).__name__)
print(c.untyped_storage().data_ptr() == a.untyped_storage().data_ptr())
c.add_(5)
print(a._version, c._version)
print(a)
print(c)
(c * c).sum().backward()
print(a.grad)
