"""A custom autograd.Function (a clipped exponential with a hand-written backward), checked
with gradcheck in double precision and used inside a tiny training loop."""

import torch


class ClippedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        out = x.clamp(max=limit).exp()
        ctx.save_for_backward(x, out)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, out = ctx.saved_tensors
        return grad_out * out * (x <= ctx.limit), None


torch.manual_seed(0)
x = torch.randn(5, dtype=torch.double, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(lambda t: ClippedExp.apply(t, 0.5), (x,)))

w = torch.zeros(3, requires_grad=True)
data = torch.randn(10, 3)
target = torch.rand(10)
opt = torch.optim.SGD([w], lr=0.05)
for step in range(4):
    pred = ClippedExp.apply(data @ w, 1.0)
    loss = ((pred - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f} grad_fn {type(pred.grad_fn).__name__}")
print("w", w)
