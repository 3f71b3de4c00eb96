# One GAN step. The discriminator loss uses fake.detach(): training D must not push
# gradients into the generator G. The generator loss uses fake itself.
import torch
from torch import nn

torch.manual_seed(0)
G = nn.Linear(2, 3)
D = nn.Linear(3, 1)
noise = torch.ones(4, 2)
real = torch.ones(4, 3)

fake = G(noise)
d_loss = D(real).mean() - D(fake.detach()).mean()
d_loss.backward()
g_loss = -D(fake).mean()
g_loss.backward()
