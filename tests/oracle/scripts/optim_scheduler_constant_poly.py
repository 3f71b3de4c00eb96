# ConstantLR, MultiplicativeLR, PolynomialLR and ChainedScheduler step by step.
import torch
from torch.optim import lr_scheduler as L

w = torch.zeros(1, requires_grad=True)
makers = {
    "ConstantLR": lambda o: L.ConstantLR(o, factor=0.5, total_iters=3),
    "MultiplicativeLR": lambda o: L.MultiplicativeLR(o, lambda epoch: 0.95),
    "PolynomialLR": lambda o: L.PolynomialLR(o, total_iters=5, power=2.0),
    "ChainedScheduler": lambda o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)]
    ),
}
for name, make in makers.items():
    opt = torch.optim.SGD([w], lr=0.1)
    sched = make(opt)
    lrs = []
    for _ in range(7):
        opt.step()
        sched.step()
        lrs.append(round(sched.get_last_lr()[0], 8))
    print(name, lrs)
