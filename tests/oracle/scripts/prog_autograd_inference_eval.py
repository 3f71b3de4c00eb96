# Train a little, then evaluate under torch.inference_mode() and try to reuse the outputs.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
X = torch.randn(30, 4)
y = torch.randint(0, 3, (30,))
for epoch in range(3):
    loss = nn.functional.cross_entropy(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
model.eval()
with torch.inference_mode():
    logits = model(X)
    acc = (logits.argmax(1) == y).float().mean()
print(f"accuracy: {acc.item():.3f}")
print("inference tensor:", logits.is_inference(), "requires_grad:", logits.requires_grad)
try:
    nn.functional.cross_entropy(model(X) * logits, y).backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
usable = logits.clone()
print("clone is inference:", usable.is_inference())
