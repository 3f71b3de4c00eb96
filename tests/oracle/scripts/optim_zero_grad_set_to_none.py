# optimizer.zero_grad() sets grads to None by default; set_to_none=False zeroes them.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.SGD([a, b], lr=0.5)
(a.sum() * b).sum().backward()
print(a.grad, b.grad)
opt.step()
print(a, b)
opt.zero_grad(set_to_none=False)
print(a.grad, b.grad)
opt.zero_grad()
print(a.grad, b.grad)
print(len(opt.param_groups), opt.param_groups[0]["lr"])
