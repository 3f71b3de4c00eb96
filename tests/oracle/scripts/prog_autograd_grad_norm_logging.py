# Log the total gradient norm of a model once per backward with register_multi_grad_hook.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 1))
params = list(model.parameters())
log = []


def on_all_grads(grads):
    total = torch.sqrt(sum((g**2).sum() for g in grads if g is not None))
    log.append(round(total.item(), 4))


handle = torch.autograd.graph.register_multi_grad_hook(params, on_all_grads)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X, y = torch.randn(20, 4), torch.randn(20, 1)
for step in range(3):
    loss = ((model(X) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} grad norm {log[-1]}")
handle.remove()
((model(X) - y) ** 2).mean().backward()
print("hook calls:", len(log))
