# retain_grad() populates .grad of a non-leaf; leaves are unaffected by it.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
z = y * y
print(y.retains_grad, z.retains_grad, x.retains_grad)
z.sum().backward()
print(y.grad)
print(x.grad)
x.retain_grad()
print(x.retains_grad)
w = x + 1
print(w.grad)
