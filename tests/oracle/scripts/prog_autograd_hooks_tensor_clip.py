"""Per-tensor gradient hooks: clipping an intermediate gradient, a multi-grad hook that sees
all parameter gradients at once, and a post-accumulate hook counting updates."""

import torch

torch.manual_seed(0)
w = torch.randn(4, 3, requires_grad=True)
b = torch.randn(4, requires_grad=True)
unused = torch.randn(2, requires_grad=True)
counts = {"acc": 0}


def seen(grads):
    print("multi hook:", [None if g is None else tuple(g.shape) for g in grads])


torch.autograd.graph.register_multi_grad_hook((w, b, unused), seen)
w.register_post_accumulate_grad_hook(lambda p: counts.update(acc=counts["acc"] + 1))

for step in range(2):
    x = torch.randn(5, 3)
    h = x @ w.t() + b
    h.register_hook(lambda g: g.clamp(-0.1, 0.1))
    loss = (h.tanh() * 3).sum()
    loss.backward()
    print(f"step {step}: loss {loss.item():.4f} |w.grad| {w.grad.norm().item():.4f}")
    print("  b.grad", b.grad)
print("post-accumulate calls:", counts["acc"])
