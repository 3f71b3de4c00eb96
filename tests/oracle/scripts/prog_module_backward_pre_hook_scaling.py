# Backward pre hooks that rescale the gradient arriving at a layer (gradient scaling trick).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
x = torch.randn(6, 4)
target = torch.randn(6, 2)


def run():
    model.zero_grad()
    nn.functional.mse_loss(model(x), target).backward()
    return model[0].weight.grad.clone()


baseline = run()
handle = model[2].register_full_backward_pre_hook(lambda m, grad_output: (grad_output[0] * 0.5,))
scaled = run()
print(torch.allclose(scaled, baseline * 0.5))
print("last layer grad unchanged?", model[2].weight.grad.abs().sum().item() > 0)
handle.remove()
log = []
model[0].register_full_backward_hook(lambda m, gi, go: log.append((gi[0] is None, go[0].shape)))
run()
print(log)
xr = x.clone().requires_grad_()
model(xr).sum().backward()
print(log[-1][0], xr.grad.shape)
