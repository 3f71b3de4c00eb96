# In-place op on a leaf that requires grad is an error (and on a view of such a leaf).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
for label, fn in [
    ("add_", lambda: x.add_(1)),
    ("iadd", lambda: x.__iadd__(1)),
    ("zero_", lambda: x.zero_()),
    ("setitem", lambda: x.__setitem__(0, 5.0)),
    ("view_add_", lambda: x[0:1].add_(1)),
]:
    try:
        fn()
        print(label, "no error")
    except RuntimeError as e:
        print(label, type(e).__name__ + ": " + str(e))
print(x, x._version)
