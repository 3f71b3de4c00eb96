# backward(inputs=[...]) accumulates only into the listed tensors.
import torch

a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0], requires_grad=True)
y = (a * b * 3).sum()
y.backward(inputs=[a], retain_graph=True)
print(a.grad, b.grad)
y.backward(inputs=[b])
print(a.grad, b.grad)
print(a.grad.requires_grad, a.grad.is_leaf, a.grad.grad_fn)
