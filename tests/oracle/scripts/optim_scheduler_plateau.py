# ReduceLROnPlateau: patience, cooldown, min_lr; mode='max' with an absolute threshold.
import torch

w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
    opt, factor=0.5, patience=1, cooldown=1, min_lr=0.2
)
for loss in [1.0, 0.8, 0.81, 0.82, 0.83, 0.84, 0.5, 0.6, 0.7, 0.8, 0.9]:
    sched.step(loss)
    print(loss, sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter)
opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
    opt, mode="max", threshold=0.1, threshold_mode="abs", patience=0
)
for acc in [0.5, 0.55, 0.7, 0.75]:
    sched.step(torch.tensor(acc))
    print(acc, sched.get_last_lr(), sched.best)
print(sorted(sched.state_dict()))
