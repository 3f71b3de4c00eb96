# Freezing D with requires_grad_(False) during the G step (the alternative to fake.detach()).
import torch
import torch.nn as nn

G = nn.Linear(1, 1)
D = nn.Linear(1, 1)
with torch.no_grad():
    G.weight.fill_(1.5)
    G.bias.fill_(0.0)
    D.weight.fill_(2.0)
    D.bias.fill_(-1.0)
for p in D.parameters():
    p.requires_grad_(False)
fake = G(torch.tensor([[1.0], [3.0]]))
g_loss = -D(fake).mean()
g_loss.backward()
print(G.weight.grad, G.bias.grad)
print(D.weight.grad, D.bias.grad, D.weight.requires_grad)
print(f"{g_loss.item():.5f}", type(g_loss.grad_fn).__name__)
