# An optimizer's state_dict: state keyed by parameter index, groups with index lists.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.Adam(
    [{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.1}], lr=0.01
)
model(torch.randn(5, 3)).sum().backward()
opt.step()
sd = opt.state_dict()
print(list(sd), list(sd["state"]))
for group in sd["param_groups"]:
    print(group)
for i, s in sd["state"].items():
    print(i, list(s), s["step"], tuple(s["exp_avg"].shape), s["exp_avg"].dtype)
print(sd["state"][0]["exp_avg"] is opt.state[model[0].weight]["exp_avg"])
