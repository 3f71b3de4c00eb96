# torch.* function spellings of methods, with keyword arguments.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = torch.tensor([[0.5, 0.5], [1.0, -1.0]])
outs = {
    "torch.add alpha": torch.add(x, y, alpha=2),
    "torch.mul": torch.mul(x, y),
    "torch.sum dim": torch.sum(x, dim=1, keepdim=True),
    "torch.mean": torch.mean(x),
    "torch.matmul": torch.matmul(x, y),
    "torch.mm": torch.mm(x, y),
    "torch.pow": torch.pow(x, 2),
    "torch.sub": torch.sub(x, y),
    "torch.div": torch.div(x, 2),
    "torch.neg": torch.neg(x),
}
for name, t in outs.items():
    print(f"{name:16s} {type(t.grad_fn).__name__:14s} {t.detach().flatten().tolist()}")
