"""Spectral clustering of a small graph: the normalised Laplacian, eigh, the Fiedler vector;
then the gradient of the algebraic connectivity with respect to the edge weights."""

import torch

A = torch.zeros(6, 6, dtype=torch.float64)
for i, j in [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)]:
    A[i, j] = A[j, i] = 1.0
weights = A.clone().requires_grad_(True)
deg = weights.sum(1)
d_inv_sqrt = torch.diag(deg.rsqrt())
L = torch.eye(6, dtype=torch.float64) - d_inv_sqrt @ weights @ d_inv_sqrt
evals, evecs = torch.linalg.eigh(L)
print("eigenvalues:", [f"{abs(v):.4f}" for v in evals.tolist()])
fiedler = evecs[:, 1] * torch.sign(evecs[0, 1])
print("clusters:", (fiedler > 0).long().tolist())
evals[1].backward()
print("d lambda_2 / d w(2,3):", f"{weights.grad[2, 3].item():.4f}")
print("d lambda_2 / d w(0,1):", f"{weights.grad[0, 1].item():.4f}")
print(type(evals.grad_fn).__name__, evals.grad_fn is evecs.grad_fn)
print(torch.linalg.eigh(torch.tensor([[2.0, 1.0], [1.0, 2.0]])))
