"""A WGAN-GP style gradient penalty: the critic's input gradient computed with
create_graph=True, its norm penalized, and the penalty backpropagated to the critic."""

import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
real = torch.randn(8, 2) + 2
fake = torch.randn(8, 2)

for step in range(3):
    alpha = torch.rand(8, 1)
    mix = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mix)
    (grad,) = torch.autograd.grad(score.sum(), mix, create_graph=True)
    penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} penalty {penalty.item():.4f}")
    print("  grad_fn of the input gradient:", type(grad.grad_fn).__name__)
print(f"|dW0| {critic[0].weight.grad.norm().item():.4f}")
