# Gradient accumulation over micro-batches, zero_grad(set_to_none=False) vs the default.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
x = torch.randn(12, 4)
y = torch.randn(12, 2)
loss_fn = nn.L1Loss()
model.zero_grad()
loss_fn(model(x), y).backward()
full = model.weight.grad.clone()
model.zero_grad(set_to_none=False)
print("zeroed, not None:", model.weight.grad.abs().sum().item(), model.weight.grad is not None)
for chunk_x, chunk_y in zip(x.split(4), y.split(4)):
    (loss_fn(model(chunk_x), chunk_y) / 3).backward()
print("accumulated == full batch:", torch.allclose(model.weight.grad, full, atol=1e-6))
model.zero_grad()
print("default zero_grad sets None:", model.weight.grad is None)
loss = loss_fn(model(x), y)
print(type(loss.grad_fn).__name__, [type(n).__name__ for n, _ in loss.grad_fn.next_functions])
