# float64 leaves get float64 grads; mixing with float32 promotes to float64.
import torch

a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
print(c.dtype)
c.sum().backward()
print(a.grad)
print(b.grad)
print(torch.tensor([1 / 3], dtype=torch.float64).item())
