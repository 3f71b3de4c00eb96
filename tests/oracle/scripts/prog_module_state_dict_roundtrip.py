# Save/restore a model in memory: train, snapshot the state_dict, perturb, restore, compare.
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(32, 3)
y = x.sum(dim=1, keepdim=True)
for _ in range(20):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
print(f"trained loss {loss.item():.4f}")
snapshot = copy.deepcopy(model.state_dict())
print("keys:", list(snapshot.keys()))
with torch.no_grad():
    for p in model.parameters():
        p.add_(torch.randn_like(p))
print(f"perturbed loss {nn.functional.mse_loss(model(x), y).item():.4f}")
result = model.load_state_dict(snapshot)
print(result)
print(f"restored loss {nn.functional.mse_loss(model(x), y).item():.4f}")
fresh = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
fresh.load_state_dict(model.state_dict())
print("same outputs:", torch.equal(fresh(x), model(x)))
print("shares storage:", fresh[0].weight.data_ptr() == model[0].weight.data_ptr())
