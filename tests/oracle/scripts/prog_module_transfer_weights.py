# Transfer learning: copy the matching weights of a pretrained model into a wider new model.
import torch
import torch.nn as nn

torch.manual_seed(0)


def make(hidden, classes):
    return nn.Sequential(
        nn.Linear(6, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, classes),
    )


pretrained = make(12, 5)
target = make(12, 3)
src = pretrained.state_dict()
dst = target.state_dict()
compatible = {k: v for k, v in src.items() if k in dst and v.shape == dst[k].shape}
skipped = [k for k in src if k not in compatible]
print("copy:", sorted(compatible))
print("skip:", skipped)
dst.update(compatible)
print(target.load_state_dict(dst))
print("layer0 equal:", torch.equal(target[0].weight, pretrained[0].weight))
print("head equal shape:", target[4].weight.shape, pretrained[4].weight.shape)
partial = {k: v for k, v in compatible.items() if k.startswith("0.")}
res = target.load_state_dict(partial, strict=False)
print("missing:", res.missing_keys)
try:
    target.load_state_dict(src)
except RuntimeError as e:
    print(str(e))
