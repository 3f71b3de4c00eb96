# backward() without an argument works for any one-element tensor, not only 0-d.
import torch

x = torch.tensor([3.0], requires_grad=True)
y = (x * 2).view(1, 1)
y.backward()
print(y.shape, x.grad)
z = x * x
z.backward(torch.tensor([0.5]))
print(x.grad)
s = (x * 4).sum()
s.backward(torch.tensor(2.0))
print(x.grad)
