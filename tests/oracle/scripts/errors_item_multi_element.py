# item() and bool() on tensors with more than one element.
import torch

t = torch.tensor([1.0, 2.0])
try:
    t.item()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    if t:
        pass
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(torch.tensor([5.0]).item())
