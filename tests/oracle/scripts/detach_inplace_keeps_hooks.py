# detach_() does not clear hooks registered before it (torch keeps them on the tensor).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
seen = []
y.register_hook(lambda g: seen.append(g.tolist()))
y.detach_()
y.requires_grad_()
(y * 3).sum().backward()
print(seen, y.grad, x.grad)
