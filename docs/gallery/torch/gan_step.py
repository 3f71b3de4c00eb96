# One GAN training step on real PyTorch: the discriminator's loss sees the generator's
# samples through detach() (so it trains D only); the generator's loss sees them whole.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
real = torch.randn(6, 2)
noise = torch.randn(6, 4)
ones, zeros = torch.ones(6, 1), torch.zeros(6, 1)

fake = G(noise)
d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + F.binary_cross_entropy_with_logits(
    D(fake.detach()), zeros
)
opt_d.zero_grad()
d_loss.backward()
opt_d.step()

g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
print(f"d_loss {d_loss.item():.4f}  g_loss {g_loss.item():.4f}")
