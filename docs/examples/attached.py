# The seed's first graph: b = a**4 and c = a**6 both reach i, so a.grad = 4a^3 + 6a^5.
import torch

a = torch.ones(5, requires_grad=True)
b = a**4
c = a**6
i = (b + c).sum()
i.backward()
print(a.grad)  # tensor([10., 10., 10., 10., 10.])
