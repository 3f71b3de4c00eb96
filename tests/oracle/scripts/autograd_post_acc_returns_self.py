import torch

p = torch.ones(2, requires_grad=True)
calls = []


def hook(t):
    calls.append(t.grad.tolist())
    return t  # returning the tensor itself is accepted


p.register_post_accumulate_grad_hook(hook)
(p * 3).sum().backward()
print(p.grad, calls)
q = torch.ones(2, requires_grad=True)
q.register_post_accumulate_grad_hook(lambda t: t * 2)
try:
    (q * 3).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
