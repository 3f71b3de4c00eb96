# A binary focal loss written with xlogy and logit, as in detection tutorials: the loss,
# its gradient, and the grad_fn names on the way.
import torch

torch.manual_seed(0)
logits = torch.randn(6, requires_grad=True)
target = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
p = torch.sigmoid(logits)
gamma = 2.0
ce = -(torch.xlogy(target, p) + torch.xlogy(1 - target, 1 - p))
pt = torch.where(target == 1, p, 1 - p)
loss = ((1 - pt) ** gamma * ce).mean()
print(round(loss.item(), 5))
print(type(ce.grad_fn.next_functions[0][0].next_functions[0][0]).__name__)
loss.backward()
print(logits.grad)
back = torch.logit(p.detach(), eps=1e-6)
print(torch.allclose(back, logits.detach(), atol=1e-5))
q = torch.tensor([0.0, 0.25, 1.0], requires_grad=True)
torch.special.logit(q).sum().backward()
print(q.grad)
print(torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])))
print(torch.logaddexp(torch.tensor([-100.0, 0.0]), torch.tensor([-100.0, 1000.0])))
