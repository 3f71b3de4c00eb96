# Early stopping on validation loss with ReduceLROnPlateau: lr drops when val loss stalls,
# training stops after `patience` epochs without improvement; the best weights are restored.
import copy

import torch
import torch.nn as nn

torch.manual_seed(1)
X = torch.linspace(-2, 2, 80).unsqueeze(1)
y = torch.sin(2 * X) + 0.1 * torch.randn(80, 1)
idx = torch.randperm(80)
tr, va = idx[:60], idx[60:]

model = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
best, best_state, bad, patience = float("inf"), None, 0, 5
for epoch in range(60):
    model.train()
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X[tr]), y[tr])
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(X[va]), y[va]).item()
    sched.step(val)
    if val < best - 1e-4:
        best, best_state, bad = val, copy.deepcopy(model.state_dict()), 0
    else:
        bad += 1
    if epoch % 5 == 0 or bad >= patience:
        lr = opt.param_groups[0]["lr"]
        print(f"epoch {epoch:2d} train {loss.item():.4f} val {val:.4f} lr {lr:.4f}")
    if bad >= patience:
        print(f"early stop at epoch {epoch}, best val {best:.4f}")
        break
model.load_state_dict(best_state)
with torch.no_grad():
    print(f"restored val {nn.functional.mse_loss(model(X[va]), y[va]).item():.4f}")
