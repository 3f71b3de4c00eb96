# enable_grad inside no_grad turns tracking back on for its block.
import torch

x = torch.tensor([2.0], requires_grad=True)
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 3
    c = x * 4
print(a.requires_grad, b.requires_grad, c.requires_grad)
b.backward()
print(x.grad)


@torch.enable_grad()
def tracked(t):
    return t * 5


with torch.no_grad():
    d = tracked(x)
print(d.requires_grad, type(d.grad_fn).__name__)
