# Same seed, same numbers: detachviz draws torch's random stream, so these print alike.
import torch
from torch import nn

torch.manual_seed(0)
print(torch.randn(3))
print(torch.rand(2, 3))
print(torch.randint(0, 10, (6,)), torch.randperm(8))
print(torch.randn(20)[-3:])
layer = nn.Linear(3, 2)
print(layer.weight, layer.bias)
print(nn.Dropout(0.5)(torch.ones(8)))
g = torch.Generator().manual_seed(7)
print(torch.rand(3, generator=g), torch.initial_seed())
state = torch.get_rng_state()
a = torch.randn(5)
torch.set_rng_state(state)
print(torch.equal(a, torch.randn(5)), torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 4, True))
