# Classification with class weights and label smoothing in CrossEntropyLoss.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(40, 6)
labels = (x[:, 0] > 0.5).long() + (x[:, 1] > 0.5).long()
weights = torch.tensor([0.5, 1.0, 2.0])
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.3)
for name, crit in [
    ("plain", nn.CrossEntropyLoss()),
    ("weighted", nn.CrossEntropyLoss(weight=weights)),
    ("smooth", nn.CrossEntropyLoss(label_smoothing=0.1)),
    ("both", nn.CrossEntropyLoss(weight=weights, label_smoothing=0.2)),
]:
    print(f"{name:9s} {crit(model(x), labels).item():.4f}")
crit = nn.CrossEntropyLoss(weight=weights, label_smoothing=0.1)
for epoch in range(5):
    opt.zero_grad()
    loss = crit(model(x), labels)
    loss.backward()
    opt.step()
    acc = (model(x).argmax(1) == labels).float().mean().item()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.3f}")
print(type(loss.grad_fn).__name__)
