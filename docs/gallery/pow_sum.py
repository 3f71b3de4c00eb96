# The seed's first example: b = a**4 and c = a**6 both reach i, so a.grad = 4a^3 + 6a^5.
import torch

a = torch.ones(20, requires_grad=True)
b = a**4
c = a**6
i = (b + c).sum()
i.backward()
print(a.grad)  # 4 + 6 = 10 at a = 1, for all 20 elements
