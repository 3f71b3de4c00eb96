# WGAN-GP: the critic's gradient penalty needs the gradient of the critic's output with
# respect to its input, with create_graph=True so the penalty itself can be backpropagated.
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
real = torch.randn(32, 2) + 2.0
lambda_gp = 10.0
for step in range(4):
    fake = torch.randn(32, 2)
    alpha = torch.rand(32, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interp)
    grads = torch.autograd.grad(
        outputs=scores, inputs=interp, grad_outputs=torch.ones_like(scores), create_graph=True
    )[0]
    gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + lambda_gp * gp
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss={loss.item():.4f} gp={gp.item():.4f}")
print(type(grads.grad_fn).__name__)
