# Custom weight initialisation with model.apply(init_fn), as the DCGAN example does.
import torch
import torch.nn as nn

torch.manual_seed(0)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    print("visit", type(m).__name__)


model = nn.Sequential(
    nn.Linear(4, 8),
    nn.ReLU(),
    nn.Sequential(nn.Linear(8, 8), nn.Tanh()),
    nn.Linear(8, 2, bias=False),
)
returned = model.apply(init_weights)
print(returned is model)
for name, p in model.named_parameters():
    print(f"{name:10s} shape={tuple(p.shape)} mean={p.mean().item():+.4f} std={p.std().item():.4f}")
x = torch.randn(5, 4)
print(model(x).sum().item() != 0)
