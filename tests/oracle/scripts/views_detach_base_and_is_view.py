# _base and _is_view() across detach, .data, views of views and clones.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * 1
cases = {
    "x": x,
    "y": y,
    "y.detach()": y.detach(),
    "y.data": y.data,
    "y[0]": y[0],
    "y[0][1:]": y[0][1:],
    "y.t().t()": y.t().t(),
    "y.clone()": y.clone(),
}
for name, t in cases.items():
    base = t._base
    print(f"{name:10s} {t._is_view()} {base is y} {base is None}")
