# Several hooks run in registration order; a hook returning None keeps the grad.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
calls = []
x.register_hook(lambda g: calls.append(("first", g.tolist())))
x.register_hook(lambda g: g * 10)
x.register_hook(lambda g: calls.append(("third", g.tolist())))
(x * 3).sum().backward()
print(calls)
print(x.grad)
y = x * 1
y.register_hook(lambda g: g * 0)
y.sum().backward()
print(x.grad)
