# The deprecated size_average/reduce arguments: torch maps them onto a reduction.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
t = torch.randn(3, 4)
for kw in ({"size_average": False}, {"reduce": False}, {"size_average": True}, {}):
    m = nn.MSELoss(**kw)
    out = m(x, t)
    print(kw, m.reduction, tuple(out.shape), f"{out.sum().item():.4f}")
print(nn.L1Loss(size_average=False)(x, t).item() > 0, nn.SmoothL1Loss(reduce=False).reduction)
print(nn.BCEWithLogitsLoss(size_average=False).reduction, nn.KLDivLoss(reduce=False).reduction)
labels = torch.tensor([0, 3, 1])
ce = nn.CrossEntropyLoss(size_average=False)(x, labels)
print(f"{ce.item():.4f}", f"{F.cross_entropy(x, labels, reduction='sum').item():.4f}")
print(F.nll_loss(x.log_softmax(1), labels, reduce=False))
print(f"{F.mse_loss(x, t, size_average=False, reduce=True).item():.4f}")
print(nn.MSELoss(size_average=False, reduction="mean").reduction)
