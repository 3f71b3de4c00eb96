# Forward and forward-pre hooks: order, prepend, with_kwargs, replacing inputs/outputs, remove.
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 2)
log = []
h1 = lin.register_forward_hook(lambda m, i, o: log.append(("fwd1", tuple(o.shape))))
h2 = lin.register_forward_hook(lambda m, i, o: log.append("fwd0"), prepend=True)
h3 = lin.register_forward_pre_hook(lambda m, i: log.append(("pre", len(i))))
x = torch.randn(4, 3)
y = lin(x)
print(log)
h4 = lin.register_forward_hook(lambda m, i, o: o * 0)
print(lin(x).abs().sum().item(), type(lin(x).grad_fn).__name__)
h4.remove()
h5 = lin.register_forward_pre_hook(lambda m, i: i[0] * 2)
print(torch.allclose(lin(x), lin.forward(x * 2)))
for h in (h1, h2, h3, h5):
    h.remove()
log.clear()
lin(x)
print(log, len(lin._forward_hooks), len(lin._forward_pre_hooks))
lin.register_forward_pre_hook(lambda m, a, k: ((), {"input": k["input"] + 1}), with_kwargs=True)
lin.register_forward_hook(
    lambda m, a, k, o: print("kw", sorted(k), tuple(o.shape)), with_kwargs=True
)
out = lin(input=x)
print(torch.allclose(out, lin.forward(x + 1)))
with lin.register_forward_hook(lambda m, i, o: print("ctx")):
    lin(input=x)
lin(input=x)
