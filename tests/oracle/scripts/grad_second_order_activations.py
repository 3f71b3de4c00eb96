# Second derivatives of tanh, sigmoid, exp and x**3 via create_graph (rounded).
import torch

for name in ["tanh", "sigmoid", "exp", "sin"]:
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    (g,) = torch.autograd.grad(getattr(torch, name)(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    print(name, [round(v, 5) for v in g.tolist()], [round(v, 5) for v in h.tolist()])
x = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
(hv,) = torch.autograd.grad(g, x, grad_outputs=torch.tensor([1.0, 0.5]))
print(g.detach(), hv)
