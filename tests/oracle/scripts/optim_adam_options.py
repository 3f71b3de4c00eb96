# Adam with weight_decay and custom betas on a fixed quadratic; state per parameter.
import torch

w = torch.tensor([2.0, -3.0], requires_grad=True)
opt = torch.optim.Adam([w], lr=0.1, betas=(0.8, 0.9), weight_decay=0.1)
for _ in range(3):
    opt.zero_grad()
    ((w - 1.0) ** 2).sum().backward()
    opt.step()
    print([round(v, 5) for v in w.tolist()])
print(len(opt.state), sorted(opt.state[w].keys()))
print(opt.state[w]["step"])
