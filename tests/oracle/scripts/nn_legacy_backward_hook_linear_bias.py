"""Legacy register_backward_hook on a Linear with bias: the hook sees the grad_fn's inputs
(bias grad already summed to the bias's shape, the input's grad, the weight's transposed)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 2)


def hook(mod, grad_input, grad_output):
    print([None if g is None else tuple(g.shape) for g in grad_input])
    print([tuple(g.shape) for g in grad_output])
    print(grad_input[0])


lin.register_backward_hook(hook)
x = torch.randn(4, 3, requires_grad=True)
lin(x).sum().backward()
y = torch.randn(4, 3)
(lin(y) * 2).sum().backward()
print(lin.bias.grad)
