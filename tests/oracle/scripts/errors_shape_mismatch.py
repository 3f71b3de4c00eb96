# Broadcasting and matmul shape errors.
import torch

a = torch.ones(2, 3)
b = torch.ones(4)
try:
    a + b
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    a @ torch.ones(2, 2)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    a.view(4)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
