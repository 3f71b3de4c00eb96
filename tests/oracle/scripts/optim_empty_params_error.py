# An optimizer needs at least one parameter.
import torch

try:
    torch.optim.SGD([], lr=0.1)
except ValueError as e:
    print(type(e).__name__ + ": " + str(e))
w = torch.tensor([1.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
opt.step()
print(w, w.grad)
