# grad_fn class names for reductions, softmax and joins (overload decides the 0/1 suffix).
import torch

x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
y = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
ops = {
    "sum": x.sum(),
    "sum_dim": x.sum(0),
    "mean": x.mean(),
    "mean_dim": x.mean(1),
    "max": x.max(),
    "softmax": x.softmax(1),
    "log_softmax": x.log_softmax(1),
    "cat": torch.cat([x, y]),
    "stack": torch.stack([x, y]),
}
for name, t in ops.items():
    print(f"{name:12s} {type(t.grad_fn).__name__}")
