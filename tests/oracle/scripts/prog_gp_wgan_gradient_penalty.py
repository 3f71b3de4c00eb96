# WGAN-GP critic step: the gradient penalty needs a gradient of a gradient (create_graph)
import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(
    nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)
)
opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
real = torch.randn(32, 2) * 0.5 + 1.0
for step in range(5):
    fake = torch.randn(32, 2)
    alpha = torch.rand(32, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mixed)
    (grads,) = torch.autograd.grad(score.sum(), mixed, create_graph=True)
    print("grad_fn of the gradient:", type(grads.grad_fn).__name__)
    penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} penalty {penalty.item():.4f}")
