# Adjusting the learning rate by hand through optimizer.param_groups (the pre-scheduler
# idiom): halve it every 3 epochs, and print the optimizer.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.4, momentum=0.5, nesterov=True)
X = torch.randn(20, 2)
y = X[:, :1] - X[:, 1:]


def adjust_learning_rate(optimizer, epoch, base=0.4):
    lr = base * (0.5 ** (epoch // 3))
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    return lr


for epoch in range(7):
    lr = adjust_learning_rate(optimizer, epoch)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} lr {lr:.3f} loss {loss.item():.4f}")
print(optimizer)
