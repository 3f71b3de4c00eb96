# Max pooling with return_indices: which input wins each window, and where its gradient goes.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([[[[1.0, 5.0, 2.0, 0.0],
                    [3.0, 4.0, 8.0, 7.0],
                    [0.5, 9.0, 1.0, 1.5],
                    [6.0, 2.0, 3.0, 4.0]]]], requires_grad=True)  # fmt: skip
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
out, idx = pool(x)
print(out)
print(idx)
out.sum().backward()
print(x.grad)
print(type(out.grad_fn).__name__, out.grad_fn._saved_kernel_size, out.grad_fn._saved_stride)
y = F.max_pool2d(x, 3, stride=1, padding=1)
print(y)
x.grad = None
y.sum().backward()
print(x.grad)
seq = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]], requires_grad=True)
v, i = F.max_pool1d(seq, 2, return_indices=True)
print(v, i, type(v.grad_fn).__name__)
