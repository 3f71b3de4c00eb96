# Seed: gradient of (a**4 + a**6).sum() at ones is 4 + 6 = 10 everywhere.
import torch

a = torch.ones(20, requires_grad=True)
b = a**4
c = a**6
i = (b + c).sum()
i.backward()
print(a.grad)
print(i)
