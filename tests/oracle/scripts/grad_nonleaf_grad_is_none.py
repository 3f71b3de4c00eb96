# A non-leaf's .grad stays None (a warning goes to stderr); leaves cut off by detach stay None.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
k = torch.tensor([5.0, 6.0], requires_grad=True)
y = x * 2
z = (y + k.detach()).sum()
z.backward()
print(y.grad)
print(x.grad)
print(k.grad)
