# Adam on a tiny linear regression with fixed weights; losses to 5 decimals.
import torch
import torch.nn as nn

lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2]]))
    lin.bias.zero_()
x = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
y = torch.tensor([[2.0], [-1.0], [1.0], [5.0]])
opt = torch.optim.Adam(lin.parameters(), lr=0.05)
for _step in range(6):
    opt.zero_grad()
    loss = ((lin(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(f"{loss.item():.5f}")
print([round(v, 5) for v in lin.weight.flatten().tolist()], round(lin.bias.item(), 5))
