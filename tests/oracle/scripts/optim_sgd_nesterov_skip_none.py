# SGD with nesterov; parameters whose grad is None are skipped by step().
import torch

a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([5.0], requires_grad=True)
opt = torch.optim.SGD([a, b], lr=0.1, momentum=0.5, nesterov=True)
for _ in range(3):
    opt.zero_grad()
    (a * a * 2).sum().backward()
    opt.step()
    print(round(a.item(), 5), b.item(), b.grad)
