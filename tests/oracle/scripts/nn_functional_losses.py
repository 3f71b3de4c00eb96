# F.mse_loss / F.relu / F.softmax / F.cross_entropy on fixed tensors, with grads.
import torch
import torch.nn.functional as F

p = torch.tensor([[0.5, 1.5], [2.0, -1.0]], requires_grad=True)
t = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
loss = F.mse_loss(p, t)
print(loss)
loss.backward()
print(p.grad)
print(F.relu(torch.tensor([-1.0, 0.0, 2.0])))
print(F.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0))
logits = torch.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
ce = F.cross_entropy(logits, torch.tensor([0]))
print(f"{ce.item():.5f}", type(ce.grad_fn).__name__)
ce.backward()
print([round(v, 5) for v in logits.grad[0].tolist()])
