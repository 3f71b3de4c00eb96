# Freezing a pretrained part (requires_grad_(False)) and optimizing only the trainable
# parameters; frozen weights stay unchanged and have no grad.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
for p in model[0].parameters():
    p.requires_grad_(False)
frozen = model[0].weight.clone()
trainable = [p for p in model.parameters() if p.requires_grad]
print(len(trainable), sum(p.numel() for p in trainable))
opt = torch.optim.Adam(trainable, lr=0.01)
X, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
for step in range(5):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.4f}")
print(torch.equal(frozen, model[0].weight), model[0].weight.grad, len(opt.state))
