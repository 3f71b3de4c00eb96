"""PCA through the SVD: centre the data, take the top components, project and reconstruct."""

import torch

torch.manual_seed(2)
n = 100
t = torch.randn(n, 1)
data = torch.cat([t, 0.5 * t + 0.1 * torch.randn(n, 1), -t + 0.2 * torch.randn(n, 1)], dim=1)
data = data.double()

mean = data.mean(dim=0)
centered = data - mean
U, S, Vh = torch.linalg.svd(centered, full_matrices=False)
explained = S**2 / (S**2).sum()
print("singular values:", [f"{v:.4f}" for v in S.tolist()])
print("explained variance ratio:", [f"{v:.4f}" for v in explained.tolist()])
print("svdvals equal:", torch.allclose(torch.linalg.svdvals(centered), S))

k = 1
components = Vh[:k]
# the sign of a singular vector is arbitrary: fix it so the largest entry is positive
sign = torch.sign(components[torch.arange(k), components.abs().argmax(dim=1)])
components = components * sign.unsqueeze(1)
projected = centered @ components.T
recon = projected @ components + mean
err = ((recon - data) ** 2).sum(dim=1).mean()
print("component:", [f"{v:.4f}" for v in components.flatten().tolist()])
print(f"reconstruction error with {k} component: {err.item():.5f}")

# nuclear norm regularisation: its gradient is U Vh
W = centered[:5].clone().requires_grad_(True)
nuc = torch.linalg.matrix_norm(W, ord="nuc")
nuc.backward()
u, s, vh = torch.linalg.svd(W.detach(), full_matrices=False)
print(f"nuclear norm {nuc.item():.4f}", type(nuc.grad_fn).__name__)
print("grad is U @ Vh:", torch.allclose(W.grad, u @ vh))
