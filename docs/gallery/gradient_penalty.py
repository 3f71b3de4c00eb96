# WGAN-GP's gradient penalty: the critic's gradient with respect to an interpolated input,
# taken with create_graph=True, is itself part of the loss, so backward goes through the
# gradient computation (a double backward). fake.detach() keeps the generator out of it.
import torch
from torch import nn

torch.manual_seed(0)
G = nn.Linear(2, 3)
D = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
real = torch.randn(5, 3)
fake = G(torch.randn(5, 2)).detach()  # cut: training the critic only

eps = torch.rand(5, 1)
mixed = (eps * real + (1 - eps) * fake).requires_grad_()
(grad,) = torch.autograd.grad(D(mixed).sum(), mixed, create_graph=True)
penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
d_loss = D(fake).mean() - D(real).mean() + 10 * penalty
d_loss.backward()
print(f"penalty {penalty.item():.4f}  d_loss {d_loss.item():.4f}")
