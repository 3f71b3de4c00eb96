# LambdaLR (one lambda per group), LinearLR warm-up, and SequentialLR chaining two schedules.
import torch
from torch.optim.lr_scheduler import ExponentialLR, LambdaLR, LinearLR, SequentialLR

a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
sched = LambdaLR(opt, [lambda e: 0.9**e, lambda e: 1.0 / (1 + e)])
for _ in range(4):
    opt.step()
    sched.step()
    print(sched.get_last_lr())
opt = torch.optim.SGD([a], lr=0.1)
warm = LinearLR(opt, start_factor=0.25, total_iters=3)
decay = ExponentialLR(opt, gamma=0.5)
sched = SequentialLR(opt, [warm, decay], milestones=[3])
lrs = [sched.get_last_lr()[0]]
for _ in range(6):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print(lrs)
print(sorted(sched.state_dict()))
