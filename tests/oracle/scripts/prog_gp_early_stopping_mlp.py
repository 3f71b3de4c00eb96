# Train/validation split with early stopping on the validation loss, keeping the best weights
import copy

import torch
from torch import nn
from torch.utils.data import TensorDataset, random_split

torch.manual_seed(3)
x = torch.randn(60, 3)
y = x @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.1 * torch.randn(60, 1)
train, val = random_split(TensorDataset(x, y), [45, 15])
xt, yt = train[:][0], train[:][1]
xv, yv = val[:][0], val[:][1]
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
best, best_state, patience = float("inf"), None, 0
for epoch in range(40):
    loss = nn.functional.mse_loss(model(xt), yt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        v = nn.functional.mse_loss(model(xv), yv).item()
    if v < best - 1e-3:
        best, best_state, patience = v, copy.deepcopy(model.state_dict()), 0
    else:
        patience += 1
    if epoch % 10 == 0 or patience == 3:
        print(f"epoch {epoch}: train {loss.item():.4f} val {v:.4f} patience {patience}")
    if patience == 3:
        break
model.load_state_dict(best_state)
print(f"best val {best:.4f}", sorted(best_state))
