# detach().clone() and clone().detach(): same values, own storage, no graph.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
v = a.detach().clone()
u = a.clone().detach()
for name, t in [("v", v), ("u", u)]:
    same = t.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    print(name, t.requires_grad, t.is_leaf, t.grad_fn, same, t._version)
v.add_(1)
print(a, v, u)
w = a.detach().clone().requires_grad_(True)
print(w, w.is_leaf)
