# padding='same' and 'valid' in Conv1d/Conv2d: output sizes, the even-kernel case, gradients.
import warnings

import torch
import torch.nn as nn

warnings.simplefilter("ignore")
torch.manual_seed(0)
x = torch.randn(1, 2, 7, 9, requires_grad=True)
for k in (1, 2, 3, 4, (3, 2)):
    conv = nn.Conv2d(2, 3, k, padding="same")
    out = conv(x)
    print(k, tuple(out.shape), type(out.grad_fn).__name__,
          type(out.grad_fn.next_functions[0][0]).__name__)  # fmt: skip
valid = nn.Conv2d(2, 3, 3, padding="valid")
print(valid, tuple(valid(x).shape))
dil = nn.Conv1d(2, 2, 3, padding="same", dilation=3)
s = torch.randn(1, 2, 10)
print(tuple(dil(s).shape))
out = nn.Conv2d(2, 1, 4, padding="same", bias=False)(x)
out.sum().backward()
print(f"grad sum {x.grad.sum().item():.5f}")
try:
    nn.Conv2d(2, 2, 3, stride=2, padding="same")
except ValueError as e:
    print("ValueError:", e)
