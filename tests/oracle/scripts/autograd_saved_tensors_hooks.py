import torch

packed = []


def pack(t):
    packed.append(tuple(t.shape))
    print("pack", tuple(t.shape), t.requires_grad)
    return t


def unpack(t):
    print("unpack", tuple(t.shape))
    return t


torch.manual_seed(0)
a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(3, 4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (a @ b).exp()
    loss = (y * 2).sum()
print("packed", len(packed))
loss.backward()
print(a.grad.shape, b.grad.shape)
# hooks that replace the saved value change the gradient
x = torch.ones(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: None, lambda p: torch.full((3,), 5.0)):
    q = x * x
q.sum().backward()
print(x.grad)
with torch.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda p: "oops"):
    r = x.exp()
try:
    r.sum().backward()
except TypeError as e:
    print("TypeError:", e)
