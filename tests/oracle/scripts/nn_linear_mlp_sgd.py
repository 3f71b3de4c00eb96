# A tiny 2-2-1 MLP with fixed weights trained by SGD; losses printed to 5 decimals.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.5, -0.3], [0.2, 0.8]]))
    model[0].bias.copy_(torch.tensor([0.1, -0.1]))
    model[2].weight.copy_(torch.tensor([[1.0, -0.5]]))
    model[2].bias.fill_(0.05)
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
y = torch.tensor([[1.0], [0.0], [-1.0]])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for _step in range(5):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print(f"{loss.item():.5f}")
print(model[2].bias.requires_grad, model[0].weight.grad.shape)
print(type(loss.grad_fn).__name__)
