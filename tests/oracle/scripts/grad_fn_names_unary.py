# grad_fn class names for elementwise functions.
import torch

x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
y = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
ops = {
    "exp": x.exp(),
    "log": y.log(),
    "sin": x.sin(),
    "cos": x.cos(),
    "tanh": x.tanh(),
    "sigmoid": x.sigmoid(),
    "relu": x.relu(),
    "sqrt": y.sqrt(),
    "abs": x.abs(),
    "torch.exp": torch.exp(x),
    "torch.relu": torch.relu(x),
    "clone": x.clone(),
}
for name, t in ops.items():
    print(f"{name:12s} {type(t.grad_fn).__name__}")
