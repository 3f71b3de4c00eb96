# A forward pre hook that standardises the inputs of a model, and one that logs kwargs.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))


def standardise(module, inputs):
    (x,) = inputs
    return (x - x.mean(0)) / (x.std(0) + 1e-5)


handle = model.register_forward_pre_hook(standardise)
x = torch.randn(10, 3) * 5 + 3
out = model(x)
manual = model.forward((x - x.mean(0)) / (x.std(0) + 1e-5))
print(torch.allclose(out, manual), f"{out.mean().item():.4f}")
handle.remove()
print(torch.allclose(model(x), manual))
calls = []
model[0].register_forward_hook(
    lambda m, args, kwargs, out: calls.append((len(args), sorted(kwargs))), with_kwargs=True
)
model[0](input=x)
model(x)
print(calls)
