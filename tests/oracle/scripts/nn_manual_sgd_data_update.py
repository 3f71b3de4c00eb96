# Legacy tutorial pattern: w.data -= lr * w.grad.data; w.grad.data.zero_().
import torch

x = torch.tensor([1.0, 2.0, 3.0, 4.0])
y = torch.tensor([3.0, 5.0, 7.0, 9.0])
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
for epoch in range(4):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    w.data -= 0.05 * w.grad.data
    b.data -= 0.05 * b.grad.data
    w.grad.data.zero_()
    b.grad.data.zero_()
    print(epoch, f"{loss.item():.5f}", round(w.item(), 5), round(b.item(), 5))
print(w._version, b._version, w.grad)
