import torch
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Linear(3, 2)
x = torch.randn(4, 3)
params = {"weight": torch.zeros(2, 3), "bias": torch.ones(2)}
print(functional_call(model, params, (x,)))
print(model.weight.abs().sum().item() > 0)
same = functional_call(model, dict(model.named_parameters()), x)
print(torch.equal(same, model(x)))
half = functional_call(model, {"bias": torch.zeros(2)}, (x,))
print(torch.allclose(half, x @ model.weight.T))
try:
    functional_call(model, {"bias": torch.zeros(2)}, (x,), strict=True)
except RuntimeError as e:
    print("RuntimeError:", e)
