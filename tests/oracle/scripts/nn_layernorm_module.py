"""nn.LayerNorm and F.layer_norm: repr, NativeLayerNormBackward0, values, grads, errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 3, 4, requires_grad=True)
ln = nn.LayerNorm(4)
print(ln)
y = ln(x)
print(type(y.grad_fn).__name__, y.grad_fn._saved_normalized_shape)
print(y)
w = torch.randn(3, 4)
(y * w).sum().backward()
print(x.grad, ln.weight.grad, ln.bias.grad)
ln2 = nn.LayerNorm([3, 4], elementwise_affine=False)
print(ln2, list(ln2.parameters()))
print(ln2(x))
ln3 = nn.LayerNorm(4, bias=False)
print(ln3, [n for n, _ in ln3.named_parameters()])
print(F.layer_norm(x, (4,), eps=1e-3).pow(2).sum(-1))
for args in [((2, 3),), ((4,), torch.ones(3))]:
    try:
        F.layer_norm(x, *args)
    except RuntimeError as e:
        print(type(e).__name__ + ": " + str(e))
