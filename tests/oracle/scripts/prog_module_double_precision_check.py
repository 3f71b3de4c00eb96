# Checking a model's gradients against finite differences in float64 (model.double()).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
x = torch.randn(5, 3, dtype=torch.float64)
y = torch.randn(5, 1, dtype=torch.float64)
loss_fn = nn.SmoothL1Loss()
loss = loss_fn(model(x), y)
loss.backward()
w = model[0].weight
eps = 1e-6
max_err = 0.0
for i in range(w.shape[0]):
    for j in range(w.shape[1]):
        with torch.no_grad():
            w[i, j] += eps
            up = loss_fn(model(x), y).item()
            w[i, j] -= 2 * eps
            down = loss_fn(model(x), y).item()
            w[i, j] += eps
        max_err = max(max_err, abs((up - down) / (2 * eps) - w.grad[i, j].item()))
print("max error below 1e-6:", max_err < 1e-6)
print(w.dtype, loss.dtype)
try:
    model(torch.randn(2, 3))
except RuntimeError as e:
    print("RuntimeError: " + str(e))
