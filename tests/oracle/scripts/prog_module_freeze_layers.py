# Fine-tuning: freeze the backbone with requires_grad_(False), train only the new head.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
head = nn.Linear(16, 3)
model = nn.Sequential(backbone, head)
backbone.requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
total = sum(p.numel() for p in model.parameters())
print(f"trainable {sum(p.numel() for p in trainable)} / {total}")
before = backbone[0].weight.clone()
opt = torch.optim.SGD(trainable, lr=0.5)
x = torch.randn(24, 10)
labels = torch.randint(0, 3, (24,))
criterion = nn.CrossEntropyLoss()
for epoch in range(4):
    opt.zero_grad()
    loss = criterion(model(x), labels)
    loss.backward()
    opt.step()
    head_grad = head.weight.grad.abs().sum().item()
    print(f"epoch {epoch}: loss={loss.item():.4f} head.grad={head_grad:.4f}")
print("backbone unchanged:", torch.equal(before, backbone[0].weight))
print("backbone grad:", backbone[0].weight.grad)
backbone[2].requires_grad_(True)
print([n for n, p in model.named_parameters() if p.requires_grad])
