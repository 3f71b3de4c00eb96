# Adadelta and Adamax on the same problem, step by step.
import torch

for name, kwargs in [("Adadelta", {"lr": 1.0, "rho": 0.8}), ("Adamax", {"lr": 0.1})]:
    w = torch.tensor([2.0, -3.0], requires_grad=True)
    opt = getattr(torch.optim, name)([w], **kwargs)
    for _ in range(5):
        opt.zero_grad()
        loss = (w[0] - 1) ** 2 + 3 * (w[1] + 0.5) ** 2
        loss.backward()
        opt.step()
    print(name, f"{loss.item():.5f}", [round(v, 5) for v in w.tolist()], sorted(opt.state[w]))
