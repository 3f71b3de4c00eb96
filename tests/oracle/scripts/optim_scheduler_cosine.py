# CosineAnnealingLR past T_max, and CosineAnnealingWarmRestarts with T_mult=2.
import torch

w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
out = []
for _ in range(10):
    opt.step()
    sched.step()
    out.append(sched.get_last_lr()[0])
print(out)
opt = torch.optim.SGD([w], lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
out = []
for _ in range(10):
    opt.step()
    sched.step()
    out.append((sched.T_cur, sched.T_i, sched.get_last_lr()[0]))
print(out)
