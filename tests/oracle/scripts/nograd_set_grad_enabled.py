# set_grad_enabled as a context manager and as a function.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
for mode in [False, True]:
    with torch.set_grad_enabled(mode):
        y = x * 2
    print(mode, y.requires_grad)
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x + 1).requires_grad)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled(), (x + 1).requires_grad)
