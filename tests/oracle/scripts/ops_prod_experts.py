"""A product of experts: each expert's probabilities multiplied with prod along the expert
dim, normalised; prod's backward is exact where an expert gives exactly zero."""

import torch

torch.manual_seed(0)
logits = torch.randn(3, 2, 4, requires_grad=True)  # experts, batch, classes
probs = logits.softmax(-1)
gate = torch.tensor([1.0, 0.0, 1.0]).view(3, 1, 1)  # the middle expert says zero
joint = (probs * gate + (1 - gate) * probs.detach()).prod(0)
print(type(joint.grad_fn).__name__, joint.shape)
poe = joint / joint.sum(-1, keepdim=True)
print(poe)
(poe[:, 0].log().sum()).backward()
print(logits.grad)
z = torch.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]], requires_grad=True)
z.prod().backward()
print(z.grad)
z.grad = None
z.prod(1).sum().backward()
print(z.grad)
print(torch.tensor([[1, 2], [3, 4]]).prod(0), torch.prod(torch.tensor([True, True])))
print(
    torch.tensor([1.0, float("nan"), 2.0]).nansum(), torch.tensor([[float("nan"), 3.0]]).nanmean(1)
)
