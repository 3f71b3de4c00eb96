# XOR with a 2-4-1 tanh/sigmoid MLP, fixed init, 60 SGD steps; loss every 20 steps.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1), nn.Sigmoid())
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[1.0, -1.0], [-1.0, 1.0], [0.5, 0.5], [-0.5, -0.3]]))
    model[0].bias.copy_(torch.tensor([0.0, 0.1, -0.2, 0.3]))
    model[2].weight.copy_(torch.tensor([[1.0, 1.0, -1.0, 0.5]]))
    model[2].bias.zero_()
x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
opt = torch.optim.SGD(model.parameters(), lr=1.0)
for step in range(60):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(step, f"{loss.item():.4f}")
print((model(x) > 0.5).squeeze(1).tolist())
