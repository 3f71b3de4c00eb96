# clip_grad_norm_ returns the total norm before clipping and scales grads in place.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
loss = (model(torch.randn(6, 4)) * 10).pow(2).mean()
loss.backward()
before = [p.grad.clone() for p in model.parameters()]
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total, total.dtype, total.shape)
after = torch.cat([p.grad.flatten() for p in model.parameters()])
print(f"{after.norm().item():.4f}", f"{(before[1] / model.bias.grad).tolist()[0]:.4f}")
print(torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0, norm_type="inf"))
print(torch.nn.utils.clip_grad_norm_([], 1.0))
model.bias.grad[0] = float("inf")
try:
    nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", e)
