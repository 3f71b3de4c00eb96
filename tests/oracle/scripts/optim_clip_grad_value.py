# clip_grad_value_ clamps each grad element; parameters_to_vector / vector_to_parameters.
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_value_, parameters_to_vector, vector_to_parameters

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
    lin.bias.fill_(0.1)
(lin(torch.tensor([[4.0, -1.0]])) ** 2).sum().backward()
print(clip_grad_value_(lin.parameters(), clip_value=2.0))
print(lin.weight.grad, lin.bias.grad)
vec = parameters_to_vector(lin.parameters())
print(vec, vec.grad_fn.name(), [f[0].name() for f in vec.grad_fn.next_functions])
vector_to_parameters(torch.arange(6.0), lin.parameters())
print(lin.weight, lin.bias, lin.weight.is_leaf)
try:
    vector_to_parameters([1.0], lin.parameters())
except TypeError as e:
    print("TypeError:", e)
