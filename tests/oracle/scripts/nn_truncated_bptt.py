# Truncated BPTT: h = h.detach() between chunks limits how far gradients reach.
import torch

w = torch.tensor(0.5, requires_grad=True)
u = torch.tensor(1.0, requires_grad=True)
xs = [1.0, -1.0, 2.0, 0.5, 1.5, -0.5]
h = torch.zeros(1)
for chunk in range(3):
    h = h.detach()
    loss = torch.zeros(())
    for x in xs[2 * chunk : 2 * chunk + 2]:
        h = torch.tanh(w * h + u * x)
        loss = loss + (h**2).sum()
    loss.backward()
    print(chunk, f"{loss.item():.5f}", round(w.grad.item(), 5), round(u.grad.item(), 5))
    w.grad = None
    u.grad = None
print(h.requires_grad, type(h.grad_fn).__name__)
