# RAdam on a noisy multi-output regression (no warm-up needed: the rectification term turns
# the adaptive step on after a few iterations).
import torch
import torch.nn as nn

torch.manual_seed(9)
X = torch.randn(64, 4)
W = torch.tensor([[1.0, 0.0], [0.0, -1.0], [0.5, 0.5], [-0.3, 0.2]])
Y = X @ W + 0.1 * torch.randn(64, 2)
model = nn.Linear(4, 2)
opt = torch.optim.RAdam(model.parameters(), lr=0.05)
for step in range(40):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    if step % 8 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")
print([[round(v, 2) for v in row] for row in model.weight.T.tolist()])
