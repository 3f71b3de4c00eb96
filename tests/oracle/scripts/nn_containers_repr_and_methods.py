"""ModuleList/ModuleDict/ParameterList/ParameterDict/LazyLinear: methods, naming and repr."""

import torch
import torch.nn as nn

ml = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])
print(ml)
print(nn.ModuleList())
ml.insert(1, nn.Tanh())
print(ml)
print(ml[1:3], len(ml))
ml.pop(0)
print(ml)
del ml[0]
print(ml)
print(ml + nn.ModuleList([nn.Sigmoid()]))

md = nn.ModuleDict({"b": nn.Linear(1, 1), "a": nn.ReLU()})
print(md, list(md.keys()), "a" in md, len(md))
md["c"] = nn.Tanh()
md.update({"d": nn.ReLU()})
print(md.pop("b"))
print(md)
print(list(md.items())[0][0], list(md.values())[0])

torch.manual_seed(0)
pl = nn.ParameterList([nn.Parameter(torch.randn(2)), nn.Parameter(torch.randn(3, 2))])
print(pl)
pl.append(nn.Parameter(torch.zeros(1, dtype=torch.float64)))
print(pl, len(pl), [n for n, _ in pl.named_parameters()])
pl2 = nn.ParameterList([torch.zeros(2)])
print(type(pl2[0]).__name__, pl2[0].requires_grad)
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2, 2)), "b": nn.Parameter(torch.zeros(2))})
print(pd)
print(list(pd.keys()), [n for n, _ in pd.named_parameters()])


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        self.p = nn.ParameterList([nn.Parameter(torch.ones(1))])


print(M())
ll = nn.LazyLinear(3)
print(ll)
print(ll.weight, ll.in_features)
torch.manual_seed(0)
y = ll(torch.ones(2, 4))
print(ll, type(ll).__name__, ll.weight.shape)
torch.manual_seed(0)
print(torch.equal(nn.Linear(4, 3).weight, ll.weight))
print(nn.Identity(3, k=2))
