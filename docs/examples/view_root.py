# A root that is a view: torchviz (and detachviz) also draw the tensor it looks into, its
# `_base`, in dark green, with a dotted arrow to the view.
import torch

a = torch.ones(2, 3, requires_grad=True)
b = a.exp() * 2
row = b[0]
