# XOR with a 2-8-1 network and RMSprop, the classic first neural-net exercise.
import torch
import torch.nn as nn

torch.manual_seed(2)
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1), nn.Sigmoid())
opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
loss_fn = nn.BCELoss()
for epoch in range(301):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    if epoch % 50 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.4f}")
with torch.no_grad():
    print((model(X) > 0.5).int().flatten().tolist())
