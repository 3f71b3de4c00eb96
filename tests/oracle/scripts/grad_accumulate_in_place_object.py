# Plain accumulation reuses the existing .grad tensor in place; create_graph makes a new one.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
g = x.grad
(x * 3).sum().backward()
print(g is x.grad, g)
(x * x).sum().backward(create_graph=True)
print(g is x.grad, g, x.grad)
