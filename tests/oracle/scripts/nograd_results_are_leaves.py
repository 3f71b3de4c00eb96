# Results computed under no_grad are leaves; they can opt in to requires_grad afterwards.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.is_leaf, y.requires_grad)
y.requires_grad_()
(y * x).sum().backward()
print(y.grad, x.grad)
print(y.numpy().tolist() if not y.requires_grad else y.detach().numpy().tolist())
