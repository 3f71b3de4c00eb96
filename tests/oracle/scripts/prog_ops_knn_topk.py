"""k-nearest-neighbour classification: pairwise distances, topk, votes with scatter_add."""

import torch

torch.manual_seed(0)
n_train, n_test, dim, k, n_classes = 40, 6, 3, 5, 3
centers = torch.tensor([[0.0, 0.0, 0.0], [3.0, 3.0, 0.0], [0.0, 3.0, 3.0]])
train_y = torch.arange(n_train) % n_classes
train_x = centers[train_y] + 0.8 * torch.randn(n_train, dim)
test_y = torch.tensor([0, 1, 2, 0, 1, 2])
test_x = centers[test_y] + 0.8 * torch.randn(n_test, dim)

# squared euclidean distances without cdist: |a|^2 - 2 a.b + |b|^2
d2 = (test_x**2).sum(1, keepdim=True) - 2 * test_x @ train_x.T + (train_x**2).sum(1)
dist, idx = d2.clamp(min=0).sqrt().topk(k, dim=1, largest=False)
print("nearest indices:", idx.tolist())
print("nearest dists:", [[f"{v:.3f}" for v in row] for row in dist.tolist()])

neighbour_labels = train_y[idx]
votes = torch.zeros(n_test, n_classes).scatter_add(1, neighbour_labels, torch.ones(n_test, k))
pred = votes.argmax(dim=1)
print("votes:", votes.tolist())
print("pred:", pred.tolist(), "acc:", (pred == test_y).float().mean().item())

# soft kNN: distance-weighted votes are differentiable in the test points
q = test_x.clone().requires_grad_(True)
d = ((q.unsqueeze(1) - train_x.unsqueeze(0)) ** 2).sum(-1)
w = torch.softmax(-d.gather(1, idx), dim=1)
soft = torch.zeros(n_test, n_classes).scatter_add(1, neighbour_labels, w)
loss = -torch.log(soft.gather(1, test_y.unsqueeze(1)) + 1e-6).mean()
loss.backward()
print(f"soft kNN loss {loss.item():.4f}")
print("grad norm per query:", [f"{v:.4f}" for v in q.grad.norm(dim=1).tolist()])
print(type(soft.grad_fn).__name__, type(w.grad_fn).__name__)
