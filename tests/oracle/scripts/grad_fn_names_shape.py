# grad_fn class names for view / shape ops and indexing.
import torch

x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
ops = {
    "t": x.t(),
    "transpose": x.transpose(0, 1),
    "view": x.view(4),
    "reshape": x.reshape(4),
    "unsqueeze": x.unsqueeze(0),
    "squeeze": x.unsqueeze(0).squeeze(0),
    "expand": x[0].expand(3, 2),
    "select": x[0],
    "slice": x[:, 1:],
    "flatten": x.flatten(),
    "permute": x.permute(1, 0),
}
for name, t in ops.items():
    print(f"{name:12s} {type(t.grad_fn).__name__}")
