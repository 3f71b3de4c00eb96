# "Optimizer step in backward": each parameter is updated by its own post-accumulate-grad hook
# as soon as its gradient is ready, then the gradient is freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
optimizers = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}


def step_hook(param):
    optimizers[param].step()
    optimizers[param].zero_grad()


for p in model.parameters():
    p.register_post_accumulate_grad_hook(step_hook)
X, y = torch.randn(12, 3), torch.randn(12, 1)
for it in range(4):
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    print(f"iter {it}: loss {loss.item():.4f}")
print([p.grad for p in model.parameters()][:1])
