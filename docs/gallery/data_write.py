# The silent .data write: x.data has a fresh version counter, so scaling it after y = x*x
# saved x is invisible to autograd's check. backward() uses the new value: grad 200, not 2.
import torch

x = torch.ones(1, requires_grad=True)
y = x * x
x.data *= 100
y.backward()
print(x.grad)  # tensor([200.]); with x.detach() instead of x.data, backward() would raise
