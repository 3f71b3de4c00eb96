"""Adam written by hand with addcmul_/addcdiv_ (as the optimizer's own update does),
compared step for step with torch.optim.Adam."""

import torch

torch.manual_seed(11)
target = torch.tensor([1.0, -2.0, 0.5])
w_manual = torch.zeros(3, requires_grad=True)
w_ref = torch.zeros(3, requires_grad=True)
ref = torch.optim.Adam([w_ref], lr=0.1)
m = torch.zeros(3)
v = torch.zeros(3)
beta1, beta2, lr, eps = 0.9, 0.999, 0.1, 1e-8

for t in range(1, 6):
    for w in (w_manual, w_ref):
        w.grad = None
        ((w - target) ** 2).sum().backward()
    ref.step()
    with torch.no_grad():
        g = w_manual.grad
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (v / (1 - beta2**t)).sqrt().add_(eps)
        w_manual.addcdiv_(m, denom, value=-lr / (1 - beta1**t))
    print(f"t={t}", [f"{x:.5f}" for x in w_manual.tolist()], torch.allclose(w_manual, w_ref))

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = torch.tensor([2.0, 8.0], requires_grad=True)
out = torch.addcdiv(x, y, z, value=0.5) + torch.addcmul(x, y, z, value=2)
out.sum().backward()
print(out.tolist(), x.grad.tolist(), y.grad.tolist(), z.grad.tolist())
