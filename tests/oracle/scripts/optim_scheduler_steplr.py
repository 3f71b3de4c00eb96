# StepLR and MultiStepLR: get_last_lr() after each epoch, and the group's lr.
import torch

w = torch.zeros(1, requires_grad=True)
for name, make in [
    ("StepLR", lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    ("MultiStepLR", lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [2, 4, 4], gamma=0.1)),
]:
    opt = torch.optim.SGD([w], lr=1.0)
    sched = make(opt)
    lrs = []
    for _epoch in range(7):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    print(name, lrs, opt.param_groups[0]["lr"], opt.param_groups[0]["initial_lr"])
