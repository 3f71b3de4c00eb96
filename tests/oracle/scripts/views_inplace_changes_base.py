# Writing through a view changes the base (and vice versa).
import torch

a = torch.zeros(2, 3)
row = a[1]
col = a[:, 2]
row.fill_(7.0)
col += 1
print(a)
a[0, 0] = -1.0
flat = a.view(-1)
print(flat)
print(a._version, row._version, flat._version)
r = a.reshape(3, 2)
r[0] = torch.tensor([5.0, 6.0])
print(a)
