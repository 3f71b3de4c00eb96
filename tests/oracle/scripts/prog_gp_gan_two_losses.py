# A GAN step: the generator's output is detached for the discriminator's loss
import torch
from torch import nn

torch.manual_seed(1)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
real = torch.randn(16, 2) + 2
for step in range(4):
    fake = G(torch.randn(16, 4))
    d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(fake.detach()), torch.zeros(16, 1))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(fake), torch.ones(16, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"{step}: d {d_loss.item():.4f} g {g_loss.item():.4f}")
print("G grads after D step:", G[0].weight.grad is not None)
