# state_dict keys, tensor values (fixed) and load_state_dict.
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(2, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.tensor([[1.0, 2.0]]))
    net[0].bias.fill_(0.5)
sd = net.state_dict()
print(list(sd.keys()))
print(sd["0.weight"], sd["0.bias"].requires_grad)
other = nn.Sequential(nn.Linear(2, 1))
print(other.load_state_dict(sd))
print(other[0].weight, other[0].bias)
