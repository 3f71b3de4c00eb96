# SGD weight_decay and per-group learning rates.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.01}], lr=0.1, weight_decay=0.5)
for _ in range(2):
    opt.zero_grad()
    (a.sum() + 2 * b.sum()).backward()
    opt.step()
    print([round(v, 5) for v in a.tolist()], [round(v, 5) for v in b.tolist()])
print([g["lr"] for g in opt.param_groups], opt.param_groups[0]["weight_decay"])
