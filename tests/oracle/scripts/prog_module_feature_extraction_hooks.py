# Feature extraction: forward hooks store each layer's activations during one forward pass.
import torch
import torch.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(16, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.fc2(self.act(self.fc1(x))))


model = MLP()
features = {}


def save_output(name):
    def hook(module, inputs, output):
        features[name] = output.detach()

    return hook


handles = [getattr(model, n).register_forward_hook(save_output(n)) for n in ("fc1", "act", "fc2")]
x = torch.randn(5, 8)
logits = model(x)
for name, feat in features.items():
    print(
        f"{name:>4}: shape={tuple(feat.shape)} mean={feat.mean().item():.4f} "
        f"requires_grad={feat.requires_grad}"
    )
print("dead relu units:", int((features["act"] == 0).all(dim=0).sum()))
print("logits", logits.shape, type(logits.grad_fn).__name__)
for h in handles:
    h.remove()
features.clear()
model(x)
print("after remove:", len(features))
