# Plain attribute prints: grad None, grad_fn None, is_leaf, device, layout.
import torch

x = torch.tensor([1.0])
print(x.grad, x.grad_fn, x.is_leaf, x.requires_grad)
print(x.device, x.device.type)
print(x.dtype is torch.float32, x.is_floating_point())
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(m.T)
print(m.ndim, m.dim(), m.nelement(), m.element_size())
