# NAdam and RAdam (the rectified branch starts after a few steps); weight decay both ways.
import torch

for name in ["NAdam", "RAdam"]:
    for decoupled in [False, True]:
        w = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
        opt = getattr(torch.optim, name)(
            [w], lr=0.1, weight_decay=0.01, decoupled_weight_decay=decoupled
        )
        for _ in range(8):
            opt.zero_grad()
            ((w - 1) ** 2).sum().backward()
            opt.step()
        print(name, decoupled, [round(v, 5) for v in w.tolist()], opt.state[w]["step"])
