# backward(gradient=v) on a non-scalar output computes a vector-Jacobian product.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y.backward(torch.tensor([1.0, 0.1, 0.01]), retain_graph=True)
print(x.grad)
x.grad = None
torch.autograd.backward(y.sum() * 2, inputs=[x])
print(x.grad)
