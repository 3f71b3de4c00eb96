# mean() of an integer tensor is refused; sum() of bools counts.
import torch

t = torch.tensor([1, 2, 4])
try:
    t.mean()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(t.float().mean())
print(torch.tensor([True, True, False]).sum())
print((t > 1).float().mean())
