# Per-sample gradients with torch.func: vmap over grad of a loss written with functional_call.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 3))
data = torch.randn(8, 5)
targets = torch.randint(0, 3, (8,))
params = {k: v.detach() for k, v in model.named_parameters()}


def compute_loss(params, sample, target):
    batch = sample.unsqueeze(0)
    predictions = functional_call(model, params, (batch,))
    return F.cross_entropy(predictions, target.unsqueeze(0))


per_sample = vmap(grad(compute_loss), in_dims=(None, 0, 0))(params, data, targets)
for name, g in per_sample.items():
    print(name, tuple(g.shape))
# the mean of per-sample gradients is the ordinary batch gradient
loss = F.cross_entropy(model(data), targets)
loss.backward()
for name, p in model.named_parameters():
    ok = torch.allclose(per_sample[name].mean(0), p.grad, atol=1e-6)
    print(f"{name}: matches batch grad: {ok}")
