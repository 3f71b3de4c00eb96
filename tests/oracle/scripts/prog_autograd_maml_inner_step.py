# MAML: adapt the parameters with one inner SGD step (create_graph=True), evaluate the adapted
# parameters with functional_call, and backpropagate the outer loss into the original ones.
import torch
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1))
meta_opt = torch.optim.SGD(model.parameters(), lr=0.01)
inner_lr = 0.05


def task(n=10):
    amp = torch.rand(1) * 2 + 0.5
    phase = torch.rand(1) * 3
    x = torch.rand(n, 1) * 10 - 5
    return x, amp * torch.sin(x + phase)


for it in range(3):
    meta_opt.zero_grad()
    outer = 0.0
    for _ in range(2):
        xs, ys = task()
        xq, yq = task()
        params = dict(model.named_parameters())
        inner_loss = ((functional_call(model, params, (xs,)) - ys) ** 2).mean()
        grads = torch.autograd.grad(inner_loss, list(params.values()), create_graph=True)
        adapted = {k: v - inner_lr * g for (k, v), g in zip(params.items(), grads)}
        outer_loss = ((functional_call(model, adapted, (xq,)) - yq) ** 2).mean()
        outer_loss.backward()
        outer += outer_loss.item()
    meta_opt.step()
    print(f"iter {it}: outer loss {outer / 2:.4f}")
print(model[0].weight.grad is not None, type(adapted["0.weight"].grad_fn).__name__)
