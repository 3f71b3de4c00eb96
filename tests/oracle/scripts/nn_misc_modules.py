# Flatten, Identity and Dropout (eval mode is the identity; train mode keeps the shape).
import torch
import torch.nn as nn

x = torch.arange(12.0).view(2, 2, 3)
print(nn.Flatten()(x).shape, nn.Identity()(x) is x)
d = nn.Dropout(p=0.5)
print(d)
d.eval()
print(torch.equal(d(x), x))
d.train()
print(d(x).shape, d.training)
print(nn.Sequential(nn.Flatten(), nn.Linear(6, 2)))
