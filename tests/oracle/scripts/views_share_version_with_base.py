# Views share the version counter with their base; _base points at the base.
import torch

base = torch.arange(6.0)
views = {
    "view": base.view(2, 3),
    "reshape": base.reshape(3, 2),
    "slice": base[1:4],
    "select": base[2],
    "narrow": base.narrow(0, 0, 2),
    "unsqueeze": base.unsqueeze(0),
}
base.add_(1)
for name, v in views.items():
    print(name, v._version, v._base is base, v.is_contiguous())
views["view"].mul_(2)
print(base._version, base)
print(base._base, base._is_view(), views["slice"]._is_view())
