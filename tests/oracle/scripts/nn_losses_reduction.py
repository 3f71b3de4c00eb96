# MSELoss / L1Loss reductions and their grad_fn names.
import torch
import torch.nn as nn
import torch.nn.functional as F

p = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
t = torch.tensor([1.5, 2.0, 3.0])
for red in ["mean", "sum", "none"]:
    out = nn.MSELoss(reduction=red)(p, t)
    print(red, out, type(out.grad_fn).__name__)
l1 = F.l1_loss(p, t)
print(l1, type(l1.grad_fn).__name__)
l1.backward()
print(p.grad)
