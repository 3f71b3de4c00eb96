"""nn.LayerNorm against the formula (biased variance, eps inside the sqrt), and its gradients
against the manual version's."""

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
ln = nn.LayerNorm(6, elementwise_affine=True).double()
with torch.no_grad():
    ln.weight.uniform_(0.5, 1.5)
    ln.bias.uniform_(-0.1, 0.1)
y = ln(x)
mu = x.mean(-1, keepdim=True)
var = x.var(-1, unbiased=False, keepdim=True)
manual = (x - mu) / torch.sqrt(var + ln.eps) * ln.weight + ln.bias
print("forward close:", torch.allclose(y, manual))
g = torch.randn(4, 6, dtype=torch.float64)
gx, gw = torch.autograd.grad(y, (x, ln.weight), g)
mx, mw = torch.autograd.grad(manual, (x, ln.weight), g)
print("grads close:", torch.allclose(gx, mx), torch.allclose(gw, mw))
print(type(y.grad_fn).__name__, type(manual.grad_fn).__name__)
print(gx[0])
