# Soft margin, margin ranking and triplet margin losses: values, node names, gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(6, requires_grad=True)
y = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
sm = F.soft_margin_loss(x, y)
sm.backward()
print(f"{sm.item():.5f}", type(sm.grad_fn).__name__, x.grad)
x2 = torch.randn(6, requires_grad=True)
mr = nn.MarginRankingLoss(margin=0.5)(x, x2, y)
print(f"{mr.item():.5f}", type(mr.grad_fn).__name__)
g1, g2 = torch.autograd.grad(mr, [x, x2])
print(g1, g2)
anchor = torch.randn(4, 3, requires_grad=True)
pos = anchor.detach() + 0.1 * torch.randn(4, 3)
neg = torch.randn(4, 3)
for swap in (False, True):
    tl = F.triplet_margin_loss(anchor, pos, neg, margin=1.0, swap=swap)
    (g,) = torch.autograd.grad(tl, anchor)
    print(swap, f"{tl.item():.5f}", type(tl.grad_fn).__name__, g[0])
print(nn.TripletMarginLoss(margin=0.2, p=1)(anchor, pos, neg).item() >= 0)
try:
    F.soft_margin_loss(x, y.requires_grad_())
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
