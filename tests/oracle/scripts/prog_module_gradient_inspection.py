# Gradient inspection: full backward hooks report the gradient norm flowing out of each layer.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
grad_norms = {}


def make_hook(name):
    def hook(module, grad_input, grad_output):
        grad_norms[name] = grad_output[0].norm().item()

    return hook


for idx, layer in enumerate(model):
    if isinstance(layer, nn.Linear):
        layer.register_full_backward_hook(make_hook(f"linear{idx}"))

x = torch.randn(16, 4, requires_grad=True)
y = torch.randn(16, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    report = ", ".join(f"{k}={v:.4f}" for k, v in grad_norms.items())
    print(f"step {step} loss {loss.item():.4f} | {report}")
print("input grad norm", f"{x.grad.norm().item():.4f}")
out = model(x)
node = out.grad_fn
print(type(node).__name__, [type(n).__name__ for n, _ in node.next_functions])
