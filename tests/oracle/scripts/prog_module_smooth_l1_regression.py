# Regression with SmoothL1Loss (as box regression heads use it): training loop and gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(64, 4)
true_w = torch.tensor([[1.5], [-2.0], [0.5], [3.0]])
y = x @ true_w + 0.1 * torch.randn(64, 1)
y[::16] += 8.0  # a few outliers
model = nn.Linear(4, 1)
criterion = nn.SmoothL1Loss(beta=1.0)
opt = torch.optim.SGD(model.parameters(), lr=0.2)
for epoch in range(30):
    opt.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    opt.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch:2d} loss {loss.item():.4f} grad {model.weight.grad.norm().item():.4f}")
print("weights", [round(v, 3) for v in model.weight.detach().flatten().tolist()])
print("grad_fn", type(loss.grad_fn).__name__, loss.grad_fn._saved_beta)
pred = model(x)
per_sample = nn.SmoothL1Loss(reduction="none")(pred, y)
print("largest", f"{per_sample.max().item():.3f}", "mean", f"{per_sample.mean().item():.4f}")
