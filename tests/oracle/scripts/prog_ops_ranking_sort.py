"""Ranking metrics with sort/argsort/topk: ranks, top-k accuracy, mean reciprocal rank,
and a differentiable pairwise ranking loss on the sorted scores."""

import torch

torch.manual_seed(8)
n_queries, n_items = 4, 6
scores = torch.randn(n_queries, n_items, requires_grad=True)
relevant = torch.tensor([2, 0, 5, 3])

order = scores.argsort(dim=1, descending=True)
ranks = order.argsort(dim=1)
rank_of_relevant = ranks.gather(1, relevant.unsqueeze(1)).squeeze(1) + 1
print("order:", order.tolist())
print("rank of relevant item:", rank_of_relevant.tolist())
print(f"MRR {(1.0 / rank_of_relevant.float()).mean().item():.4f}")
for k in (1, 3):
    hit = (scores.topk(k, dim=1).indices == relevant.unsqueeze(1)).any(dim=1)
    print(f"top-{k} accuracy {hit.float().mean().item():.2f}")

sorted_scores, sorted_idx = torch.sort(scores, dim=1, descending=True)
print("sorted row 0:", [f"{v:.4f}" for v in sorted_scores[0].tolist()])
pos = scores.gather(1, relevant.unsqueeze(1))
margin_loss = torch.relu(1.0 - pos + scores).sum() / n_queries
margin_loss.backward()
print(f"margin loss {margin_loss.item():.4f}")
print("grad row 0:", [f"{v:.2f}" for v in scores.grad[0].tolist()])
top = sorted_scores[:, :2].sum()
print(type(sorted_scores.grad_fn).__name__, type(top.grad_fn).__name__)
vals = torch.tensor([3.0, 1.0, 3.0, 2.0, 1.0])
print(torch.sort(vals, stable=True))
print(torch.topk(vals, 3))
