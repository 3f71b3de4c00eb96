"""A coordinate grid from meshgrid (both indexings) feeding a radial bump; the gradient of a
centre parameter flows through ExpandBackward0/ViewBackward0 of the grid."""

import torch

xs = torch.linspace(-1, 1, 4)
ys = torch.linspace(0, 1, 3)
gx, gy = torch.meshgrid(xs, ys, indexing="ij")
hx, hy = torch.meshgrid(xs, ys, indexing="xy")
print(gx.shape, hx.shape, torch.equal(gx, hx.t()), gy._base is ys)
c = torch.tensor([0.2, 0.5], requires_grad=True)
cx, cy = torch.meshgrid(c[:1].expand(4), c[1:].expand(3), indexing="ij")
bump = torch.exp(-((gx - cx) ** 2 + (gy - cy) ** 2))
print(type(cx.grad_fn).__name__, type(cx.grad_fn.next_functions[0][0]).__name__)
bump.sum().backward()
print(c.grad)
pts = torch.stack(torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xy"), -1)
print(pts.reshape(-1, 2).tolist())
print(torch.column_stack([xs, xs * 2]).shape, torch.hstack([xs, ys]).shape)
print(torch.vstack([xs, xs]).shape, torch.dstack([xs, xs]).shape)
