# BatchNorm1d in an MLP: running statistics move in train mode and are used in eval mode.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1))
bn = model[1]
print(bn)
print("initial running_mean:", bn.running_mean)
print("initial running_var:", bn.running_var)
data = torch.randn(8, 4) * 2 + 1
for step in range(3):
    out = model(data)
    print(f"step {step} out mean {out.mean().item():.4f} batches {bn.num_batches_tracked.item()}")
print("running_mean:", [round(v, 4) for v in bn.running_mean.tolist()])
print("running_var:", [round(v, 4) for v in bn.running_var.tolist()])
model.eval()
with torch.no_grad():
    a = model(data[:2])
    b = model(data[:1])
print("eval is per-sample:", torch.allclose(a[:1], b))
print("eval output:", [round(v, 4) for v in a.flatten().tolist()])
model.train()
single = torch.randn(1, 4)
try:
    model(single)
except ValueError as e:
    print("ValueError:", e)
