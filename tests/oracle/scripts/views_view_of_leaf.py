# A view of a leaf requiring grad is a non-leaf (ViewBackward0); grads reach the leaf.
import torch

w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
m = w.view(2, 2)
print(m.is_leaf, m.requires_grad, type(m.grad_fn).__name__, m._base is w)
try:
    m.mul_(2)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
(m * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(w.grad)
with torch.no_grad():
    m[0, 0] = 100.0
print(w, w._version)
