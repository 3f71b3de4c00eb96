import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
seen = []
h = torch.autograd.graph.register_multi_grad_hook(
    (a, b), lambda grads: seen.append([g.tolist() for g in grads])
)
(a.sum() * b.sum()).backward()
print(seen)
h.remove()
((a * b).sum()).backward()
print(len(seen))
first = []
torch.autograd.graph.register_multi_grad_hook(
    (a, b), lambda g: first.append(g.tolist()), mode="any"
)
(a.sum() + b.sum() * 3).backward()
(a.sum() * 2 + b.sum()).backward()
print(len(first))
try:
    torch.autograd.graph.register_multi_grad_hook((a,), print, mode="some")
except ValueError as e:
    print("ValueError:", e)
