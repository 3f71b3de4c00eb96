# Function and unbound-method spellings: torch.detach, torch.clone, Tensor.detach(x).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
a = torch.detach(x)
b = torch.clone(x)
c = torch.Tensor.detach(x)
print(a.requires_grad, b.requires_grad, type(b.grad_fn).__name__, c.requires_grad)
print(a.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
print(c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
y = x.new_full((2,), 7.0)
z = x.new_empty((3,))
print(y, y.requires_grad, z.shape, z.dtype)
