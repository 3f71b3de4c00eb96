# Deliberately uncaught error after some output: exit code 1, same last error line as torch.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print(x.grad)
print("about to fail")
x.add_(1)
print("not reached")
