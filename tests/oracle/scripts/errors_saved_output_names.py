# Which grad_fn name the "modified by an inplace operation" message gives for saved outputs.
import torch

for name in ["exp", "sigmoid", "tanh", "sqrt"]:
    x = torch.tensor([1.0, 4.0], requires_grad=True)
    y = getattr(x, name)()
    y.detach().mul_(2)
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(name, str(e).split(" Hint:")[0])
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
s = x.softmax(1)
s.detach().zero_()
try:
    s.sum().backward()
except RuntimeError as e:
    print("softmax", str(e).split(" Hint:")[0])
