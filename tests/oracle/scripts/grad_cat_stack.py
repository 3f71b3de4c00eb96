# Gradients flow back through cat and stack to each piece.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.cat([a, b * 2])
(c * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(c, a.grad, b.grad)
p = torch.tensor([1.0, 1.0], requires_grad=True)
q = torch.tensor([2.0, 2.0], requires_grad=True)
s = torch.stack([p, q * q], dim=1)
print(s.shape)
(s * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(p.grad, q.grad)
