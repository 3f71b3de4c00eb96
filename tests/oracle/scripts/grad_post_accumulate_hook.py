# register_post_accumulate_grad_hook runs after .grad is written; refused on non-leaves.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
log = []
w.register_post_accumulate_grad_hook(lambda p: log.append(p.grad.tolist()))
(w * 3).sum().backward()
(w * 1).sum().backward()
print(log)
y = w * 2
try:
    y.register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
