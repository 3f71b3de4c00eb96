# add_param_group: a layer unfrozen later gets its own lr; repr lists both groups.
import torch
import torch.nn as nn

torch.manual_seed(0)
body, head = nn.Linear(2, 2), nn.Linear(2, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
opt.add_param_group({"params": body.parameters(), "lr": 0.01})
print(opt)
print([len(g["params"]) for g in opt.param_groups], opt.param_groups[1]["momentum"])
try:
    opt.add_param_group({"params": head.weight})
except ValueError as e:
    print("ValueError:", e)
try:
    opt.add_param_group({"params": {head.bias}})
except TypeError as e:
    print("TypeError:", e)
