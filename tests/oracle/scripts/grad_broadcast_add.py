# Broadcasting: gradients are summed back to each input's shape.
import torch

a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
c = torch.tensor([[1.0], [2.0]], requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
out = (a + b) * c * s
out.sum().backward()
print(out)
print(a.grad)
print(b.grad)
print(c.grad)
print(s.grad)
