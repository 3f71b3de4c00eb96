# A hook on an intermediate tensor changes what flows further back.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
log = []
y.register_hook(lambda g: log.append(g.clone()))
y.register_hook(lambda g: g + 1)
z = (y * y).sum()
z.backward()
print(log[0])
print(x.grad)
print(y.grad_fn.name(), len(log))
