# A tiny MLP through every new activation, trained by SGD: module repr, node names, losses.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
acts = [
    nn.LeakyReLU(0.1),
    nn.ELU(),
    nn.GELU(),
    nn.GELU("tanh"),
    nn.SiLU(),
    nn.Softplus(beta=2.0),
    nn.Hardtanh(-1.5, 1.5),
    nn.ReLU6(inplace=True),
]
layers = []
for act in acts:
    layers += [nn.Linear(4, 4), act]
model = nn.Sequential(*layers, nn.Linear(4, 1))
print(model)
x = torch.randn(16, 4)
y = (x[:, :1] * 2 - x[:, 1:2]).tanh()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(6):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", f"{model[0].weight.grad.norm().item():.4e}")
h = x.requires_grad_()
names = []
for act in acts:
    h = act(h * 1)
    names.append(type(h.grad_fn).__name__)
print(names)
out = F.softplus(F.elu_(F.leaky_relu(h, 0.2) * 1))
print(type(out.grad_fn).__name__, out.grad_fn._saved_beta, out.grad_fn._saved_threshold)
(g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
print(round(g.sum().item(), 4), g.requires_grad)
