# 0-d integer tensors with Python numbers, and true division results.
import torch

t = torch.tensor(3)
print(t / 2, t // 2, t * 1.5, t + True, t**2)
print(torch.tensor([1, 2]).float().requires_grad_())
print(torch.tensor(7) % 3, -torch.tensor(7) // 2)
print(torch.tensor(2.0) ** torch.tensor(3), (torch.tensor(2.0) ** torch.tensor(3)).dtype)
