# Gradients of relu/sigmoid/tanh/exp/log/sqrt at fixed points (rounded for stability).
import torch

pts = [-2.0, -0.5, 0.0, 0.5, 2.0]
for name in ["relu", "sigmoid", "tanh", "exp", "sin", "abs"]:
    x = torch.tensor(pts, requires_grad=True)
    getattr(torch, name)(x).sum().backward()
    print(name, [round(v, 5) for v in x.grad.tolist()])
x = torch.tensor([0.25, 1.0, 4.0], requires_grad=True)
(torch.log(x) + torch.sqrt(x)).sum().backward()
print("log+sqrt", [round(v, 5) for v in x.grad.tolist()])
