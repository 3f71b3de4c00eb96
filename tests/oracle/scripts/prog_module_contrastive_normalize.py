# A small contrastive (InfoNCE-style) step: normalised embeddings, similarity matrix, CE.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
proj = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8))
opt = torch.optim.Adam(proj.parameters(), lr=0.01)
x = torch.randn(8, 6)
temperature = 0.5
for step in range(5):
    view1 = x + 0.1 * torch.randn(8, 6)
    view2 = x + 0.1 * torch.randn(8, 6)
    z1 = F.normalize(proj(view1), dim=1)
    z2 = F.normalize(proj(view2), dim=1)
    logits = z1 @ z2.t() / temperature
    loss = F.cross_entropy(logits, torch.arange(8))
    opt.zero_grad()
    loss.backward()
    opt.step()
    diag = ((z1 * z2).sum(1).mean() / temperature).item()
    print(f"step {step} loss {loss.item():.4f} diag {diag:.4f}")
print(type(z1.grad_fn).__name__, [round(v, 4) for v in z1.norm(dim=1)[:3].tolist()])
sim = F.cosine_similarity(z1[:4], z2[:4])
print([round(v, 4) for v in sim.tolist()])
