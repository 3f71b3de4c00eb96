# Full backward hooks: BackwardHookFunctionBackward nodes, grad_input/grad_output, replacement.
import warnings

import torch
import torch.nn as nn

warnings.simplefilter("ignore")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
seen = []


def hook(m, gin, gout):
    seen.append(
        (
            type(m).__name__,
            [None if g is None else tuple(g.shape) for g in gin],
            [tuple(g.shape) for g in gout],
        )
    )


for layer in model:
    layer.register_full_backward_hook(hook)
x = torch.randn(5, 3)
y = model(x)
print(type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__)
y.sum().backward()
print(seen)
xr = torch.randn(5, 3, requires_grad=True)
h = model[1].register_full_backward_hook(lambda m, gin, gout: (gin[0] * 0,))
model(xr).sum().backward()
print(xr.grad.abs().sum().item())
h.remove()
pre = model[2].register_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,))
xr.grad = None
seen.clear()
model(xr).sum().backward()
print(seen[0][2], f"{xr.grad.sum().item():.4f}")
pre.remove()
try:
    model[0].register_backward_hook(lambda m, gi, go: None)
except RuntimeError as e:
    print("RuntimeError: " + str(e))
