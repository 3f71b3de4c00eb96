# Fine-tuning with per-layer learning rates: a small lr for the "backbone", a larger one for
# the new head; MultiStepLR scales both groups.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
head = nn.Linear(12, 3)
opt = torch.optim.SGD(
    [{"params": backbone.parameters(), "lr": 1e-3}, {"params": head.parameters()}],
    lr=1e-1,
    momentum=0.9,
)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
X = torch.randn(40, 6)
y = torch.randint(0, 3, (40,))
for epoch in range(6):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(head(backbone(X)), y)
    loss.backward()
    opt.step()
    sched.step()
    print(epoch, f"{loss.item():.4f}", [f"{lr:.0e}" for lr in sched.get_last_lr()])
print(opt)
