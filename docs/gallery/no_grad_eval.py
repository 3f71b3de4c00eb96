# Evaluation under torch.no_grad() records no graph. Here the evaluated value is then used
# as a fixed target (as with a target network), so the picture shows where no_grad cut it.
import torch

w = torch.ones(3, requires_grad=True)
x_train = torch.tensor([1.0, 2.0, 3.0])
x_val = torch.tensor([1.0, 1.0, 1.0])

with torch.no_grad():
    target = (w * x_val).sum()
print("target requires_grad:", target.requires_grad)

pred = (w * x_train).sum()
loss = (pred - target) ** 2
loss.backward()
print(w.grad)  # 2 * (6 - 3) * x_train: only the pred path carries gradient
