"""A k-nearest-neighbour vote: pairwise squared distances by broadcasting, topk for the
nearest, take_along_dim to read their labels, unique/bincount for the vote; a soft version
sends gradients to the queries through GatherBackward0."""

import torch

torch.manual_seed(0)
train = torch.randn(6, 2)
labels = torch.tensor([0, 1, 1, 0, 2, 1])
q = torch.randn(3, 2, requires_grad=True)
d2 = ((q.unsqueeze(1) - train.unsqueeze(0)) ** 2).sum(-1)  # (3, 6)
near = d2.topk(3, largest=False).indices
lab = torch.take_along_dim(labels.unsqueeze(0).expand(3, -1), near, 1)
print(lab)
print([torch.bincount(row, minlength=3).tolist() for row in lab])
print(torch.unique(lab, return_counts=True))
picked = torch.take_along_dim(d2, near, dim=1)
print(type(picked.grad_fn).__name__, picked)
picked.sum().backward()
print(q.grad)
print(torch.searchsorted(torch.tensor([0.5, 1.0, 2.0]), picked.detach()))
print(torch.nonzero(lab == 1), torch.argwhere(lab == 2).shape)
print(torch.tensordot(q, train, dims=([1], [1])).shape, torch.inner(q, train).grad_fn.name())
