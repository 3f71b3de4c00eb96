# Old-style code with the deprecated size_average/reduce arguments (still common in repos).
import warnings

import torch
import torch.nn as nn

warnings.simplefilter("ignore")
torch.manual_seed(0)
model = nn.Linear(3, 1)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
sum_loss = nn.MSELoss(size_average=False)
mean_loss = nn.MSELoss()
per_elem = nn.MSELoss(reduce=False)
pred = model(x)
print(f"sum={sum_loss(pred, y).item():.4f} mean*n={mean_loss(pred, y).item() * 8:.4f}")
print(per_elem(pred, y).shape, sum_loss.reduction, per_elem.reduction)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    opt.zero_grad()
    loss = sum_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad {model.weight.grad.norm().item():.4f}")
bce = nn.BCELoss(size_average=False)
p = torch.sigmoid(model(x))
print(f"bce sum {bce(p, (y > 0).float()).item():.4f}")
print(nn.functional.l1_loss(pred, y, size_average=False, reduce=False).shape)
