# How much does backward keep alive? Count what autograd saves with saved_tensors_hooks.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
x = torch.randn(8, 16)
stats = {"packs": 0, "unpacks": 0, "bytes": 0}


def pack(t):
    stats["packs"] += 1
    stats["bytes"] += t.numel() * t.element_size()
    return t


def unpack(t):
    stats["unpacks"] += 1
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    loss = model(x).pow(2).mean()
print(f"saved {stats['packs']} tensors, {stats['bytes']} bytes")
loss.backward()
print(f"unpacked {stats['unpacks']} during backward")
with torch.no_grad():
    stats["packs"] = 0
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        model(x)
print("packs under no_grad:", stats["packs"])
print(f"grad norm: {model[0].weight.grad.norm().item():.4f}")
