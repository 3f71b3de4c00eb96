# Inference after a short training run: model.eval(), torch.no_grad(), accuracy per class.
import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
    nn.Flatten(), nn.Dropout(0.25), nn.Linear(8 * 2 * 2, 2),
)  # fmt: skip
# class 0: bright top half, class 1: bright bottom half
x = torch.randn(20, 1, 8, 8) * 0.3
y = torch.arange(20) % 2
x[y == 0, :, :4] += 1.0
x[y == 1, :, 4:] += 1.0
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for _epoch in range(8):
    model.train()
    opt.zero_grad()
    loss = nn.CrossEntropyLoss()(model(x), y)
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    logits = model(x)
    probs = torch.softmax(logits, dim=1)
pred = probs.argmax(1)
print("requires_grad under no_grad:", logits.requires_grad)
for c in (0, 1):
    acc = (pred[y == c] == c).float().mean().item()
    print(f"class {c} accuracy {acc:.2f}")
