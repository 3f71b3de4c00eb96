# A tensor hook that returns a new grad replaces it; handle.remove() undoes it.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
seen = []


def double(g):
    seen.append(g.tolist())
    return g * 2


h = x.register_hook(double)
(x * x).sum().backward()
print(x.grad)
print(seen)
h.remove()
x.grad = None
(x * x).sum().backward()
print(x.grad)
print(len(seen))
