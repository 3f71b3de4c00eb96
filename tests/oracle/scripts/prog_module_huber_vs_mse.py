# Robust fitting: the same model fit with MSE and with Huber loss on data with outliers.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.linspace(-2, 2, 40).unsqueeze(1)
y = 3 * x + 1 + 0.05 * torch.randn(40, 1)
y[5] = 15.0
y[30] = -12.0


def fit(criterion):
    torch.manual_seed(1)
    model = nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
    return model.weight.item(), model.bias.item(), loss.item()


for name, crit in [
    ("mse", nn.MSELoss()),
    ("huber", nn.HuberLoss(delta=1.0)),
    ("huber0.5", nn.HuberLoss(delta=0.5)),
]:
    w, b, final = fit(crit)
    print(f"{name:8s} w={w:.3f} b={b:.3f} loss={final:.4f}")
pred = torch.zeros(3, requires_grad=True)
target = torch.tensor([0.5, 2.0, -3.0])
loss = nn.functional.huber_loss(pred, target, reduction="sum", delta=1.0)
loss.backward()
print(loss.item(), pred.grad, type(loss.grad_fn).__name__)
