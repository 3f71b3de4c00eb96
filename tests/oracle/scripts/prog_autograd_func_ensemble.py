# Model ensembling: evaluate several copies of a model (different weights) on one batch by
# looping functional_call over their parameter dicts, then vmap over the stacked weights.
import torch
import torch.nn as nn
from torch.func import functional_call, stack_module_state, vmap

torch.manual_seed(0)
models = [nn.Linear(3, 2) for _ in range(4)]
x = torch.randn(5, 3)
base = models[0]
param_dicts = [{k: v.detach() for k, v in m.named_parameters()} for m in models]
outs = [functional_call(base, p, (x,)) for p in param_dicts]
print("loop outputs:", [tuple(o.shape) for o in outs])
print("same as calling the models:", all(torch.allclose(o, m(x)) for o, m in zip(outs, models)))
stacked = {k: torch.stack([p[k] for p in param_dicts]) for k in param_dicts[0]}
print({k: tuple(v.shape) for k, v in stacked.items()})


def run(params, inp):
    return functional_call(base, params, (inp,))


vmapped = vmap(run, in_dims=(0, None))(stacked, x)
print("vmap shape:", tuple(vmapped.shape))
print("vmap matches loop:", torch.allclose(vmapped, torch.stack(outs)))
print(f"ensemble mean: {vmapped.mean(0).sum().item():.4f}")
params, buffers = stack_module_state(models)
print({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()}, buffers)
print("stacked matches:", torch.allclose(vmap(run, in_dims=(0, None))(params, x), vmapped))
