# Running a model under no_grad: outputs do not require grad, params keep requires_grad.
import torch
import torch.nn as nn

net = nn.Linear(2, 1)
with torch.no_grad():
    net.weight.copy_(torch.tensor([[1.0, -1.0]]))
    net.bias.zero_()
    out = net(torch.tensor([[3.0, 1.0]]))
print(out, out.requires_grad)
print(net.weight.requires_grad, net.weight.grad)
print(net(torch.tensor([[3.0, 1.0]])))
