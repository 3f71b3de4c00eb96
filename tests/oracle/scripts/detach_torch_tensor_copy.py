# torch.tensor(t) copies: a new leaf that does not require grad unless asked.
import torch

t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = t * 3
x = torch.tensor(y)
print(x.requires_grad, x.is_leaf, x.grad_fn)
print(x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr())
x2 = torch.tensor(y, requires_grad=True)
print(x2.requires_grad, x2.is_leaf, x2.grad_fn)
x.add_(1)
print(y)
print(x)
print(x._version, y._version)
