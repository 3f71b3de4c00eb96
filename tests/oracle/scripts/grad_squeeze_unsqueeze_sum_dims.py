# Shape ops and multi-dim reductions route gradients back to the original shape.
import torch

x = torch.tensor([[[1.0, 2.0]], [[3.0, 4.0]]], requires_grad=True)
s = x.squeeze(1)
u = s.unsqueeze(-1)
print(s.shape, u.shape)
r = u.sum(dim=(0, 2))
print(r, type(r.grad_fn).__name__)
r.sum().backward()
print(x.grad.shape, x.grad.flatten())
m = x.mean(dim=(1, 2), keepdim=True)
print(m.shape, m.flatten())
