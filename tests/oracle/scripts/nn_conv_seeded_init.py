import torch
import torch.nn as nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 8, 3)
print(conv.weight[0, 0])
print(conv.bias)
convt = nn.ConvTranspose2d(4, 2, 3, groups=2)
print(convt.weight.shape, convt.weight.flatten()[:5])
emb = nn.Embedding(4, 3, padding_idx=1)
print(emb.weight)
c1 = nn.Conv1d(2, 2, 2, bias=False)
print(c1.weight)
print(torch.rand(2))
