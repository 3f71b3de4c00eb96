# Adagrad with lr_decay and an initial accumulator: its state exists before the first step.
import torch

w = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
opt = torch.optim.Adagrad([w], lr=0.5, lr_decay=0.1, initial_accumulator_value=0.2)
print(opt.state_dict()["state"])
for step in range(4):
    opt.zero_grad()
    (w**2).sum().backward()
    opt.step()
    print(
        step, [round(v, 5) for v in w.tolist()], [round(v, 5) for v in opt.state[w]["sum"].tolist()]
    )
