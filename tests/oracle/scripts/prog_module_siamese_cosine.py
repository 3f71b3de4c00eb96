# Siamese embeddings: cosine similarity between pairs, pulled together or pushed apart.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8))
a = torch.randn(10, 6)
b = a + 0.3 * torch.randn(10, 6)
b[5:] = torch.randn(5, 6)
same = torch.tensor([1.0] * 5 + [0.0] * 5)
cos = nn.CosineSimilarity(dim=1)
opt = torch.optim.SGD(encoder.parameters(), lr=0.2)
for step in range(8):
    sim = cos(encoder(a), encoder(b))
    loss = (same * (1 - sim) + (1 - same) * F.relu(sim - 0.2)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print(
            f"step {step} loss {loss.item():.4f} pos {sim[:5].mean().item():.4f} "
            f"neg {sim[5:].mean().item():.4f}"
        )
print(type(sim.grad_fn).__name__)
emb = F.normalize(encoder(a), dim=1)
print("unit norms", [round(v, 4) for v in emb.norm(dim=1)[:3].tolist()])
print("pairwise", [round(v, 4) for v in F.pairwise_distance(emb[:3], emb[3:6]).tolist()])
