# A tanh MLP regressing y = exp(-x^2) with nn.Linear's seeded init and SGD with momentum.
import torch
from torch import nn

torch.manual_seed(7)
x = torch.linspace(-3, 3, 300).unsqueeze(1)
y = torch.exp(-x * x)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(400):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    if epoch % 80 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.6f}")
with torch.no_grad():
    probe = torch.tensor([[-2.0], [0.0], [1.5]])
    print("pred", [f"{v:.4f}" for v in model(probe).squeeze(1).tolist()])
