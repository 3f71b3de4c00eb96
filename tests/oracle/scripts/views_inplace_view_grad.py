# In-place on a view of a non-leaf: the base gets a CopySlices grad_fn.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
v = y[1:]
v.mul_(10)
print(y)
print(type(y.grad_fn).__name__, type(v.grad_fn).__name__)
y.sum().backward()
print(x.grad)
