# A two-layer relu net drawn with --show-saved: what each backward node keeps for backward.
# ReluBackward0 keeps its `result` and the next MmBackward0 keeps the same tensor as `self`:
# two orange boxes, one per (node, saved attribute), as torchviz draws them.
import torch

torch.manual_seed(0)
x = torch.randn(2, 3)
w1 = torch.randn(3, 4, requires_grad=True)
w2 = torch.randn(4, 1, requires_grad=True)
h = torch.relu(x @ w1)
out = (h @ w2 * 0.5).sum()
