# GAN-style step: D is trained on fake.detach(), so G's params keep grad None.
import torch
import torch.nn as nn

G = nn.Linear(1, 1)
D = nn.Linear(1, 1)
with torch.no_grad():
    G.weight.fill_(2.0)
    G.bias.fill_(0.5)
    D.weight.fill_(-1.0)
    D.bias.fill_(0.25)
z = torch.tensor([[1.0], [2.0]])
real = torch.tensor([[3.0], [5.0]])
fake = G(z)
d_loss = D(real).mean() - D(fake.detach()).mean()
d_loss.backward()
for name, p in list(G.named_parameters()) + list(D.named_parameters()):
    print(name, None if p.grad is None else p.grad.tolist())
D.zero_grad()
g_loss = -D(fake).mean()
g_loss.backward()
print(G.weight.grad, G.bias.grad)
print(D.weight.grad, D.bias.grad)
print(f"{d_loss.item():.5f} {g_loss.item():.5f}")
