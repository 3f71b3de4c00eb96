# Legacy Variable(tensor, requires_grad=True) is just a tensor; .data and isinstance.
import torch
from torch.autograd import Variable

v = Variable(torch.ones(2), requires_grad=True)
print(v, type(v).__name__, isinstance(v, torch.Tensor), isinstance(v, Variable))
y = (v * 3).sum()
y.backward()
print(v.grad, v.data, v.data.requires_grad)
w = Variable(torch.tensor([1.0, 2.0]))
print(w.requires_grad, w.is_leaf)
