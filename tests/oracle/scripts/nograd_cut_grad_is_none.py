# A parameter used only under no_grad gets grad None, not zeros.
import torch

w1 = torch.tensor([1.0, 2.0], requires_grad=True)
w2 = torch.tensor([3.0, 4.0], requires_grad=True)
with torch.no_grad():
    h = w1 * 2
out = (h * w2).sum()
out.backward()
print(w1.grad)
print(w2.grad)
print(out)
