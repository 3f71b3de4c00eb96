# The seed's second graph: c is computed from a.detach(), so only b carries gradient to a.
import torch

a = torch.ones(5, requires_grad=True)
b = a**3
c = a.detach() ** 6
i = (b + c).sum()
i.backward()
print(a.grad)  # tensor([3., 3., 3., 3., 3.]): 3a^2, the a**6 branch is cut
