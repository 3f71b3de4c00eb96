# detach_() on a leaf that requires grad simply turns requires_grad off.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
out = w.detach_()
print(out is w, w.requires_grad, w.is_leaf, w.grad_fn, w._version)
w.add_(1)
print(w, w._version)
