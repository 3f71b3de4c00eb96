# Under no_grad results do not require grad, even from inputs that do.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
print(y.requires_grad, y.is_leaf, y.grad_fn)
z = x * 2
print(z.requires_grad, type(z.grad_fn).__name__)
(y * x).sum().backward()
print(x.grad)
