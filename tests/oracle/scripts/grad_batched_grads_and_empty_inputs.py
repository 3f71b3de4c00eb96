"""autograd.grad(is_grads_batched=True): one vector-Jacobian product per row of the batched
grad_outputs (a whole Jacobian at once); backward(inputs=[]) is refused."""

import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
w = torch.randn(2, 3, requires_grad=True)
y = torch.tanh(w @ x)
(jac_x, jac_w) = torch.autograd.grad(
    y, (x, w), grad_outputs=torch.eye(2), is_grads_batched=True, retain_graph=True
)
print(jac_x.shape, jac_w.shape)
print(jac_x)
rows = [torch.autograd.grad(y[i], x, retain_graph=True)[0] for i in range(2)]
print(torch.allclose(jac_x, torch.stack(rows)))
z = torch.randn(3, requires_grad=True)
g = torch.autograd.grad(
    (x * 2).sum(), (x, z), torch.ones(4), is_grads_batched=True, allow_unused=True
)
print(g[0], g[1])
try:
    (x * 2).sum().backward(inputs=[])
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
