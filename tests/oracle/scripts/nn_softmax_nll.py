# nn.Softmax / nn.LogSoftmax modules and F.nll_loss on fixed logits.
import torch
import torch.nn as nn
import torch.nn.functional as F

logits = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
print(nn.Softmax(dim=1)(logits))
lsm = nn.LogSoftmax(dim=1)(logits)
print(lsm)
loss = F.nll_loss(lsm, torch.tensor([1, 2]))
print(f"{loss.item():.5f}", type(loss.grad_fn).__name__)
loss.backward()
print(logits.grad)
