# Seed: v3.detach().data.add_(t1) changes v3 too (legacy FloatTensor / Variable spelling).
import torch
from torch.autograd import Variable

t1 = torch.FloatTensor([1.0, 2.0])
v1 = Variable(t1)
t2 = torch.FloatTensor([2.0, 3.0])
v2 = Variable(t2)
v3 = v1 + v2
v3_detached = v3.detach()
v3_detached.data.add_(t1)
print(v3, v3_detached)
print(type(v1).__name__, v1.requires_grad, t1.dtype)
