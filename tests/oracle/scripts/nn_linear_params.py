# nn.Linear parameter names, shapes, flags and the forward grad_fn (RNG-independent).
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 2)
for name, p in lin.named_parameters():
    print(name, tuple(p.shape), p.requires_grad, p.is_leaf, type(p).__name__)
print(lin)
print(lin.in_features, lin.out_features)
out = lin(torch.ones(4, 3))
print(out.shape, type(out.grad_fn).__name__)
nb = nn.Linear(3, 2, bias=False)
print(nb.bias, [n for n, _ in nb.named_parameters()])
print(sum(p.numel() for p in lin.parameters()))
