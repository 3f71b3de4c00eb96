# Basic indexing gives views; advanced (list/bool) indexing copies. grad_fn names differ.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x * 1
cases = {
    "y[1]": y[1],
    "y[:, 1]": y[:, 1],
    "y[..., 0]": y[..., 0],
    "y[:, None]": y[:, None],
    "y[-1, -1]": y[-1, -1],
    "y[[0, 1], [2, 0]]": y[[0, 1], [2, 0]],
    "y[y > 2]": y[y > 2],
    "y[::2]": y[::2],
}
for name, t in cases.items():
    print(f"{name:18s} {tuple(t.shape)} {t._base is y} {type(t.grad_fn).__name__}")
y[[0, 1], [2, 0]].sum().backward()
print(x.grad)
