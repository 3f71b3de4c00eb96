# RMSprop with momentum and centered=True on a tiny quadratic; state keys and values.
import torch

torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
target = torch.tensor([1.0, -2.0, 0.5, 3.0])
opt = torch.optim.RMSprop([w], lr=0.05, alpha=0.9, momentum=0.5, centered=True)
for step in range(5):
    opt.zero_grad()
    loss = ((w - target) ** 2).sum()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", [round(v, 5) for v in w.tolist()])
state = opt.state[w]
print(sorted(state), state["step"])
print([round(v, 5) for v in state["grad_avg"].tolist()])
