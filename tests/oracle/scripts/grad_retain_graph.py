# retain_graph=True lets backward run twice; grads double.
import torch

x = torch.tensor([1.0, -2.0], requires_grad=True)
y = (x.exp() * x).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
