# SmoothL1 (beta) and Huber (delta): values, grad_fn names, saved attrs, gradients, reductions.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
t = torch.randn(3, 4)
for beta in (1.0, 0.5, 0.0):
    loss = F.smooth_l1_loss(x, t, beta=beta)
    (g,) = torch.autograd.grad(loss, x)
    print(beta, f"{loss.item():.5f}", type(loss.grad_fn).__name__, g[0])
loss = nn.SmoothL1Loss(beta=0.3, reduction="sum")(x, t)
print(f"{loss.item():.5f}", loss.grad_fn._saved_beta, loss.grad_fn._saved_reduction)
for delta in (1.0, 0.25, 2.0):
    loss = F.huber_loss(x, t, delta=delta, reduction="none")
    (g,) = torch.autograd.grad(loss.sum(), x)
    print(delta, loss[1], type(loss.grad_fn).__name__, g[1])
h = nn.HuberLoss(delta=0.5)(x, t)
print(f"{h.item():.5f}", h.grad_fn._saved_delta, len(h.grad_fn.next_functions))
print(nn.HuberLoss(), nn.SmoothL1Loss(beta=0.5))
try:
    F.smooth_l1_loss(x, t, beta=-1.0)
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
