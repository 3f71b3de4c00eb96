# Optimizer parameter groups built from named_parameters: no weight decay on biases.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if name.endswith("bias") else decay).append(p)
    print(name, "no_decay" if name.endswith("bias") else "decay")
opt = torch.optim.SGD([{"params": decay, "weight_decay": 0.01}, {"params": no_decay}], lr=0.05)
x = torch.randn(16, 5)
y = torch.randn(16, 1)
for step in range(4):
    opt.zero_grad()
    loss = nn.MSELoss()(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print([len(g["params"]) for g in opt.param_groups], [g["weight_decay"] for g in opt.param_groups])
print(model.get_parameter("2.bias").shape, model.get_submodule("0").out_features)
