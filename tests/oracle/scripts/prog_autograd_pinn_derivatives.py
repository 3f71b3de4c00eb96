# Physics-informed training: the loss uses u_x and u_xx of the network output with respect
# to its input, both taken with create_graph=True.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
x = torch.linspace(0, 1, 25).reshape(-1, 1).requires_grad_(True)
bc = torch.tensor([[0.0], [1.0]])
for step in range(5):
    u = net(x)
    u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    pde = ((u_xx + torch.pi**2 * torch.sin(torch.pi * x)) ** 2).mean()
    boundary = (net(bc) ** 2).mean()
    loss = pde + boundary
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: pde {pde.item():.3f} bc {boundary.item():.4f}")
print(type(u_xx.grad_fn).__name__, x.grad is not None)
