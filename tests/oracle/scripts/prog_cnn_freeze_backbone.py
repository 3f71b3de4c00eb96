# Transfer learning: freeze the conv backbone, train only the new head.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
for p in backbone.parameters():
    p.requires_grad = False
backbone.eval()
head = nn.Linear(8, 3)
model = nn.Sequential(backbone, nn.Flatten(), head)
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print("trainable:", trainable)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
x, y = torch.randn(6, 3, 10, 10), torch.tensor([0, 1, 2, 0, 1, 2])
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("conv grad:", backbone[0].weight.grad)
print("bn batches tracked:", backbone[1].num_batches_tracked.item())
feats = backbone(x)
print(feats.requires_grad, feats.grad_fn)
