# nn.CrossEntropyLoss on a fixed 3-class linear classifier, a few SGD steps.
import torch
import torch.nn as nn

lin = nn.Linear(2, 3)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.2, -0.1], [0.0, 0.3], [-0.2, 0.1]]))
    lin.bias.zero_()
x = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
target = torch.tensor([0, 1, 2, 0])
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(lin.parameters(), lr=0.5)
for _ in range(4):
    opt.zero_grad()
    loss = loss_fn(lin(x), target)
    loss.backward()
    opt.step()
    print(f"{loss.item():.5f}")
pred = lin(x).argmax(dim=1)
print(pred, pred.dtype)
