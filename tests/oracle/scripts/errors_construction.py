# Construction and shape errors: ragged lists, two -1s, out-of-range index, dtype mismatch.
import torch

try:
    torch.tensor([[1, 2], [3]])
except ValueError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    torch.ones(6).view(-1, -1)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    torch.ones(3)[5]
except IndexError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
