# OneCycleLR also cycles SGD's momentum (and Adam's beta1); stepping past the end raises.
import torch

w = torch.zeros(1, requires_grad=True)
for opt in [torch.optim.SGD([w], lr=0.1, momentum=0.9), torch.optim.Adam([w], lr=0.1)]:
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=8)
    out = []
    for _ in range(8):
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        out.append((round(sched.get_last_lr()[0], 6), round(g.get("momentum", g["betas"][0]), 6)))
    print(type(opt).__name__, out)
    try:
        sched.step()
    except ValueError as e:
        print("ValueError:", e)
