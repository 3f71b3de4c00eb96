# Activation offloading with torch.autograd.graph.save_on_cpu: same numbers, saved tensors
# kept on the CPU (here everything already is).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
X, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(4):
    with torch.autograd.graph.save_on_cpu(pin_memory=False):
        loss = nn.functional.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.4f}")
