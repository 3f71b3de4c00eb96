# retain_grad and register_hook need a tensor that requires grad.
import torch

x = torch.tensor([1.0, 2.0])
try:
    x.retain_grad()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    x.register_hook(lambda g: g)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
