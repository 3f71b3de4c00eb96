# The modern manual update: in-place under no_grad, then grad.zero_().
import torch

x = torch.tensor([[1.0], [2.0], [3.0]])
y = torch.tensor([[2.0], [4.0], [6.0]])
w = torch.tensor([[0.5]], requires_grad=True)
for step in range(3):
    loss = ((x @ w - y) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.02 * w.grad
        w.grad.zero_()
    print(step, f"{loss.item():.5f}", w)
print(w._version, w.is_leaf)
