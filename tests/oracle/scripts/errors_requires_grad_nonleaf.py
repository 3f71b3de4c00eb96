# requires_grad can only be changed on leaves (the False case adds a detach() hint).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
for label, fn in [
    ("set False", lambda: setattr(y, "requires_grad", False)),
    ("set True", lambda: setattr(y, "requires_grad", True)),
    ("requires_grad_(False)", lambda: y.requires_grad_(False)),
    ("requires_grad_()", lambda: y.requires_grad_()),
]:
    try:
        fn()
        print(label, "ok")
    except RuntimeError as e:
        print(label, type(e).__name__ + ": " + str(e))
print(y.requires_grad, y.is_leaf)
