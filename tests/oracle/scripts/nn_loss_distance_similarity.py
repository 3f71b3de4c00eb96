# cosine_similarity, normalize, pairwise_distance and their modules: values, names, grads.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(3, 4, requires_grad=True)
c = F.cosine_similarity(a, b)
print(c, type(c.grad_fn).__name__)
c.sum().backward()
print(a.grad[0], b.grad[0])
print(nn.CosineSimilarity(dim=0)(a, b))
n = F.normalize(a, dim=1)
print(n.norm(dim=1), type(n.grad_fn).__name__)
print(F.normalize(a, p=1, dim=0)[0])
d = F.pairwise_distance(a, b)
print(d, type(d.grad_fn).__name__, d.grad_fn._saved_p)
print(nn.PairwiseDistance(p=1, keepdim=True)(a, b).shape)
a.grad = None
d.sum().backward()
print(a.grad[1])
print(F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3)))
