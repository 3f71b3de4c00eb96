"""register_multi_grad_hook: mode="all" fires with None for a tensor the pass never reaches
(backward, backward(inputs=...), autograd.grad of non-leaves); mode="any" fires once."""

import torch

a = torch.randn(2, requires_grad=True)
b = torch.randn(2, requires_grad=True)


def show(gs):
    print([None if g is None else tuple(g.shape) for g in gs])


h = torch.autograd.graph.register_multi_grad_hook((a, b), show)
(a * 2).sum().backward()
(a * b).sum().backward()
(b * 3).sum().backward()
try:
    torch.autograd.grad((a * b).sum(), (a,))
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
(a * b).sum().backward(inputs=[a])
h.remove()
(a * b).sum().backward()
x = a * 1
y = b * 1
h = torch.autograd.graph.register_multi_grad_hook((x, y), show)
torch.autograd.grad((x * 2).sum(), (a,))
h2 = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: print("any", g), mode="any")
(a * 2 + b).sum().backward()
