# The seed's second example: c is computed from a.detach(), so only b = a**3 carries gradient.
import torch

a = torch.ones(20, requires_grad=True)
b = a**3
c = a.detach() ** 6
i = (b + c).sum()
i.backward()
print(a.grad)  # 3a^2 = 3 at a = 1: the a**6 branch contributes nothing
