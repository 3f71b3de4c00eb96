# retain_grad() follows the tensor through a later in-place op (grad w.r.t. the new value).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
y.mul_(3)
(y * y).sum().backward()
print(y.grad)
print(x.grad)
print(y.retains_grad, type(y.grad_fn).__name__)
