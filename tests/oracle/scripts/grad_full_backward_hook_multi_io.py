"""Full backward hooks on a module with several inputs and outputs: grad_input materializes
zeros for tensor inputs no gradient reached, grad_output has None for unused outputs."""

import torch
import torch.nn as nn


class Split(nn.Module):
    def forward(self, a, b, k):
        return a * 2, b.sum(), a.sum() * k


def show(gs):
    return [None if g is None else (tuple(g.shape), round(g.sum().item(), 4)) for g in gs]


m = Split()
m.register_full_backward_hook(lambda mod, gi, go: print("hook", show(gi), show(go)))
a = torch.randn(2, requires_grad=True)
b = torch.randn(3)
o1, o2, o3 = m(a, b, 3.0)
o1.sum().backward(retain_graph=True)
o3.backward()
b2 = torch.randn(3, requires_grad=True)
o1, o2, o3 = m(a, b2, 2.0)
(o1.sum() + o2).backward()
o1, o2, o3 = m(a, b2, 2.0)
o2.backward()
print(a.grad, b2.grad)
