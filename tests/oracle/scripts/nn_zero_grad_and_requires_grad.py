# Module.zero_grad sets grads to None; requires_grad_(False) freezes a layer.
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
net[0].requires_grad_(False)
out = net(torch.ones(3, 2)).sum()
out.backward()
for name, p in net.named_parameters():
    print(name, p.requires_grad, p.grad is None)
net.zero_grad()
print([p.grad for p in net.parameters()])
print(net.training, net.eval().training)
