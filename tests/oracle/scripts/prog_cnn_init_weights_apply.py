# model.apply(init_weights): kaiming for convs, xavier for linears, constants for norms.
import torch
import torch.nn as nn


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.trunc_normal_(m.bias, std=0.02)


torch.manual_seed(42)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
    nn.Conv2d(8, 8, 3, bias=False), nn.GroupNorm(2, 8),
    nn.Flatten(), nn.Linear(8 * 4 * 4, 5),
)  # fmt: skip
model.apply(init_weights)
for name, p in model.named_parameters():
    print(f"{name:10s} mean {p.mean().item():+.6f} std {p.std().item():.6f}")
w = torch.empty(3, 5)
nn.init.orthogonal_(w)
print("orthogonal rows:", torch.allclose(w @ w.t(), torch.eye(3), atol=1e-5))
d = torch.empty(4, 2, 3, 3)
nn.init.dirac_(d)
print(d.sum(dim=(2, 3)))
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
print(nn.init.eye_(torch.empty(2, 3)))
