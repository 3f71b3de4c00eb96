# Seed: the article's .storage() variant (TypedStorage; any deprecation warning goes to stderr).
import torch


def samestorage(a, b):
    if a.storage().data_ptr() == b.storage().data_ptr():
        print("it is the same storage space")
    else:
        print("it is different storage space")


p = torch.ones((4, 5), requires_grad=True)
q = p
r = p.data
s = p.detach()
t = p.data.clone()
u = p.clone()
v = p.detach().clone()
w = torch.empty_like(p).copy_(p)
x = torch.tensor(p)
table = [("p", p), ("q", q), ("r", r), ("s", s), ("t", t), ("u", u), ("v", v), ("w", w), ("x", x)]
for name, other in table:
    print(name + ":", end="")
    samestorage(p, other)
