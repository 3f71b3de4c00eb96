# A view created under no_grad and modified in place with grad enabled is refused.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
with torch.no_grad():
    v = y[:2]
print(v.requires_grad, v._is_view())
try:
    v.mul_(2)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(y)
