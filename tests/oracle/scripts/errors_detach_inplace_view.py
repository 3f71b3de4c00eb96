# detach_() on a view is refused.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * 2
v = y[0]
try:
    v.detach_()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(v.requires_grad, type(v.grad_fn).__name__)
w = y.view(4)
try:
    w.detach_()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e).split(". ")[0])
