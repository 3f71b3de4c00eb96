"""A patch extractor: Tensor.unfold twice makes a view of 2x2 patches; a loss on the patches
sends gradients back through UnfoldBackward0 (overlapping windows add up)."""

import torch

torch.manual_seed(0)
img = torch.randn(1, 4, 5, requires_grad=True)
patches = img.unfold(1, 2, 1).unfold(2, 2, 2)  # (1, 3, 2, 2, 2)
print(patches.shape, patches._base is img, patches.is_contiguous())
print(type(patches.grad_fn).__name__, type(patches.grad_fn.next_functions[0][0]).__name__)
flat = patches.reshape(1, -1, 4)
print(type(flat.grad_fn).__name__)
score = (flat * torch.arange(4.0)).sum(-1).prod(1)
score.backward()
print(img.grad)
w = torch.zeros(6)
w.unfold(0, 3, 3)[1, 0] = 5.0  # writes through the view
print(w)
