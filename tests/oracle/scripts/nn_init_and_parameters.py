# nn.init constant_/zeros_/ones_ in place on parameters; parameters() is a generator.
import torch
import torch.nn as nn

lin = nn.Linear(3, 2)
nn.init.constant_(lin.weight, 0.5)
nn.init.zeros_(lin.bias)
print(lin.weight, lin.bias)
print(lin(torch.tensor([[1.0, 2.0, 3.0]])))
params = lin.parameters()
print(type(params).__name__, len(list(params)), len(list(lin.parameters())))
nn.init.ones_(lin.bias)
print(lin.bias, lin.weight.is_leaf, lin.weight._version)
