"""Gradient norms by hand: per-parameter and global 2-norms with torch.linalg.vector_norm,
clipping by the global norm, and Tensor.norm forms for comparison."""

import torch
import torch.nn as nn

torch.manual_seed(16)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
x, y = torch.randn(10, 5), torch.randn(10, 2)
loss = ((model(x) - y) ** 2).sum()
loss.backward()
norms = [torch.linalg.vector_norm(p.grad) for p in model.parameters()]
total = torch.linalg.vector_norm(torch.stack(norms))
print("param grad norms:", [f"{n.item():.4f}" for n in norms])
print(f"total {total.item():.4f}")
max_norm = 1.0
scale = (max_norm / (total + 1e-6)).clamp(max=1.0)
for p in model.parameters():
    p.grad.mul_(scale)
after = torch.linalg.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
print(f"after clipping {after.item():.4f}")
w = model[0].weight.detach()
fro, spectral = torch.linalg.matrix_norm(w), torch.linalg.matrix_norm(w, 2)
print(f"fro {fro.item():.4f} spectral {spectral.item():.4f}")
inf, one = torch.linalg.matrix_norm(w, float("inf")), torch.linalg.norm(w, 1)
print(f"inf {inf.item():.4f} 1 {one.item():.4f}")
print("row norms:", [f"{v:.4f}" for v in w.norm(dim=1).tolist()])
print("p=1 cols:", [f"{v:.4f}" for v in torch.norm(w, p=1, dim=0).tolist()])
v = torch.tensor([3.0, -4.0], requires_grad=True)
n = torch.linalg.norm(v)
n.backward()
print(n, type(n.grad_fn).__name__, v.grad)
