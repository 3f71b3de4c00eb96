# A scheduler's state_dict is its attributes (not the optimizer); loading one resumes it.
import torch

w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
for _ in range(3):
    opt.step()
    sched.step()
sd = sched.state_dict()
print(sd)
opt2 = torch.optim.SGD([w], lr=1.0)
opt2.load_state_dict(opt.state_dict())
sched2 = torch.optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.1, last_epoch=-1)
sched2.load_state_dict(sd)
for _ in range(3):
    opt2.step()
    sched2.step()
    print(sched2.last_epoch, sched2.get_last_lr(), opt2.param_groups[0]["lr"])
