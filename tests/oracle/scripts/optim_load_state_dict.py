# Loading an optimizer's state into a fresh one continues the same trajectory.
import torch


def make():
    w = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
    return w, torch.optim.SGD([w], lr=0.1, momentum=0.9)


def steps(w, opt, n):
    for _ in range(n):
        opt.zero_grad()
        ((w * torch.tensor([1.0, 2.0, 3.0])) ** 2).sum().backward()
        opt.step()
    return [round(v, 6) for v in w.tolist()]


w1, o1 = make()
steps(w1, o1, 3)
w2, o2 = make()
with torch.no_grad():
    w2.copy_(w1)
o2.load_state_dict(o1.state_dict())
print(o2.state[w2]["momentum_buffer"])
print(steps(w1, o1, 3) == steps(w2, o2, 3), o2.param_groups[0]["params"][0] is w2)
try:
    o2.load_state_dict({"state": {}, "param_groups": []})
except ValueError as e:
    print("ValueError:", e)
