# Seed: at a = 2 the gradient is 4*2**3 + 6*2**5 = 224 (the article's claim).
import torch

a = torch.full((20,), 2.0, requires_grad=True)
b = a**4
c = a**6
i = (b + c).sum()
i.backward()
print(a.grad)
print(i.item())
