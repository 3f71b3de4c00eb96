# Seed: which copy idioms share storage with p (untyped_storage variant).
import torch


def samestorage(a, b):
    if a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr():
        print("it is the same storage space")
    else:
        print("it is different storage space")


p = torch.ones((4, 5), requires_grad=True)
print(p)
q = p
r = p.data
s = p.detach()
t = p.data.clone()
u = p.clone()
v = p.detach().clone()
w = torch.empty_like(p).copy_(p)
x = torch.tensor(p)
for name, other in [("p", p), ("q", q), ("r", r), ("s", s), ("t", t), ("u", u), ("v", v)]:
    print(name + ":", end="")
    samestorage(p, other)
print("w:", end="")
samestorage(p, w)
print("x:", end="")
samestorage(p, x)
for name, other in [("r", r), ("s", s), ("t", t), ("u", u), ("v", v), ("w", w), ("x", x)]:
    print(name, other.requires_grad, other.is_leaf)
