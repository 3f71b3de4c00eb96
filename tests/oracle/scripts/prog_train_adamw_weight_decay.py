# Adam with L2 (weight_decay) versus AdamW (decoupled weight decay): same model and data,
# different final weight norms.
import torch
import torch.nn as nn

X = torch.linspace(-1, 1, 30).unsqueeze(1)
y = 0.8 * X + 0.1
for name in ["Adam", "AdamW"]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 1))
    opt = getattr(torch.optim, name)(model.parameters(), lr=0.01, weight_decay=0.1)
    for _ in range(100):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        opt.step()
    norm = sum(p.pow(2).sum() for p in model.parameters()).sqrt()
    print(f"{name}: loss {loss.item():.4f}, weight norm {norm.item():.3f}")
    print(opt.param_groups[0]["decoupled_weight_decay"], opt.param_groups[0]["weight_decay"])
