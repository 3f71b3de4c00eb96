import torch

n = [0]


def pack(t):
    n[0] += 1
    return t.clone()


x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    y = (x**3).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
print(g, gg, n[0] > 0)
w = torch.ones(2, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    z = (w.exp() * w).sum()
z.backward()
print(w.grad)
