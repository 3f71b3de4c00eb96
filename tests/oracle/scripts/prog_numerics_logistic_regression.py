# Logistic regression on two Gaussian blobs: sigmoid probabilities, BCE by hand, SGD.
import torch

torch.manual_seed(1)
n = 200
x0 = torch.randn(n // 2, 2) + torch.tensor([-1.5, 0.0])
x1 = torch.randn(n // 2, 2) + torch.tensor([1.5, 0.5])
x = torch.cat([x0, x1])
y = torch.cat([torch.zeros(n // 2), torch.ones(n // 2)])
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(301):
    p = torch.sigmoid(x @ w + b)
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.5 * w.grad
        b -= 0.5 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if step % 50 == 0:
        acc = ((p > 0.5).float() == y).float().mean()
        print(f"step {step:3d} loss {loss.item():.5f} acc {acc.item():.3f}")
print("w", [round(v, 4) for v in w.tolist()], "b", round(b.item(), 4))
