# A float64 batch through a float32 Linear: torch refuses (no silent promotion).
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
for x in (
    torch.randn(4, 3, dtype=torch.float64),
    torch.randn(3, dtype=torch.float64),
    torch.ones(2, 3, dtype=torch.long),
):
    try:
        layer(x)
    except RuntimeError as e:
        print("RuntimeError: " + str(e))
try:
    nn.Linear(3, 2, bias=False)(torch.randn(4, 3, dtype=torch.float64))
except RuntimeError as e:
    print("RuntimeError: " + str(e))
print(layer.double()(torch.randn(4, 3, dtype=torch.float64)).dtype)
print(layer.float()(torch.randn(1, 3)).dtype)
