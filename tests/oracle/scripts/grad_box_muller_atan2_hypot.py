# Box-Muller from two uniforms, and its inverse with hypot/atan2: the polar angle and radius
# of a 2-D point cloud, with gradients through both.
import math

import torch

torch.manual_seed(0)
u1 = torch.rand(5).clamp_min(1e-6).requires_grad_()
u2 = torch.rand(5, requires_grad=True)
r = torch.sqrt(-2 * torch.log(u1))
theta = 2 * math.pi * u2
z0, z1 = r * torch.cos(theta), r * torch.sin(theta)
radius = torch.hypot(z0, z1)
angle = torch.atan2(z1, z0)
print(radius)
print(angle)
print(type(radius.grad_fn).__name__, type(angle.grad_fn).__name__)
(angle.remainder(2 * math.pi) + radius.square()).sum().backward()
print(u1.grad)
print(u2.grad)
print(torch.rad2deg(angle.detach()).round())
print(torch.arctan2(torch.tensor([1.0, -1.0]), torch.tensor([0.0, 0.0])))
