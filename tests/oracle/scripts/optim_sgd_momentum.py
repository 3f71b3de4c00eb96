# SGD with momentum on a fixed quadratic; parameter values to 5 decimals.
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
target = torch.tensor([0.5, 0.5])
for step in range(4):
    opt.zero_grad()
    loss = ((w - target) ** 2).sum()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", [round(v, 5) for v in w.tolist()])
print(w.grad is not None, w._version)
