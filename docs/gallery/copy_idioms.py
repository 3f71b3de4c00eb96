# The seed's copy idioms: which of them share p's storage, and which keep its graph.
import torch


def samestorage(a, b):
    if a.storage().data_ptr() == b.storage().data_ptr():
        print("same storage", end="")
    else:
        print("different storage", end="")


p = torch.ones((4, 5), requires_grad=True)
q = p
r = p.data
s = p.detach()
t = p.data.clone()
u = p.clone()
v = p.detach().clone()
w = torch.empty_like(p).copy_(p)
x = torch.tensor(p)

for name, y in zip("pqrstuvwx", [p, q, r, s, t, u, v, w, x]):
    print(f"{name}: ", end="")
    samestorage(p, y)
    print(f", requires_grad={y.requires_grad}, grad_fn={type(y.grad_fn).__name__}")

# Sum them all: the picture shows which copies still carry gradient back to p.
loss = torch.stack([q, r, s, t, u, v, w, x]).sum()
loss.backward()
print(p.grad[0])  # 3 paths reach p: q, u and w
