# A hand-written optimizer subclassing torch.optim.Optimizer (the docs' pattern): defaults,
# per-parameter state, a closure, and its state_dict.
import torch


class SignSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, decay=0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, decay=decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                state["steps"] = state.get("steps", 0) + 1
                p.add_(
                    (p.grad > 0).float() * 2 - 1,
                    alpha=-group["lr"] / (1 + group["decay"] * state["steps"]),
                )
        return loss


w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
opt = SignSGD([w], lr=0.1, decay=0.5)
for _ in range(4):

    def closure():
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    print(f"{opt.step(closure).item():.4f}", [round(v, 4) for v in w.tolist()])
print(opt.state_dict())
print(opt)
