# Chains of detach/.data/clone all alias or copy as expected; versions tell them apart.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x.detach().detach()
b = x.data.detach()
c = x.detach().data
d = x.detach().clone().detach()
for t in (a, b, c, d):
    t.add_(1)
print(x)
print(x._version, a._version, b._version, c._version, d._version)
print(a.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
