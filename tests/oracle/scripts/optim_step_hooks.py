# Optimizer step pre/post hooks run around every step and can be removed.
import torch

w = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
log = []
h1 = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", w.tolist())))
h2 = opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", w.tolist())))
for i in range(3):
    w.grad = torch.tensor([1.0, -1.0])
    opt.step()
    if i == 1:
        h1.remove()
print(log)
