# Every in-place op bumps _version by one; out-of-place ops do not.
import torch

t = torch.zeros(3)
print(t._version)
t.add_(1)
t.mul_(2)
t.sub_(0.5)
t.div_(3)
print(t._version)
t[0] = 9.0
t.zero_()
t.fill_(4.0)
t.copy_(torch.tensor([1.0, 2.0, 3.0]))
print(t._version)
u = t + 1
t += 1
t *= 2
print(t._version, u._version)
print(t)
