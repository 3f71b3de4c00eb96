# Per-example Jacobians of a network with torch.func: vmap(jacrev(f)).
import torch
import torch.nn as nn
from torch.func import jacrev, vmap

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 2))
xs = torch.randn(5, 3)
jacs = vmap(jacrev(net))(xs)
print("jacobians:", tuple(jacs.shape))
single = jacrev(net)(xs[2])
print("entry 2 matches:", torch.allclose(jacs[2], single))
print(f"mean abs entry: {jacs.abs().mean().item():.4f}")
# Frobenius norm per example: a smoothness penalty
print("norms:", [f"{n:.4f}" for n in jacs.flatten(1).norm(dim=1).tolist()])
