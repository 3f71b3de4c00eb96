"""torch.save of a whole model object and torch.load(weights_only=False); the default
weights_only=True load refuses the pickled module class with torch's message."""

import io
import pickle

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Dropout(0.1), nn.Linear(4, 1))
model.eval()
buf = io.BytesIO()
torch.save(model, buf)

buf.seek(0)
loaded = torch.load(buf, weights_only=False)
print(loaded)
print("training:", loaded.training, "dropout p:", loaded[2].p)
x = torch.randn(2, 3)
print("same output:", torch.equal(loaded(x), model(x)))
print("params:", [(n, tuple(p.shape)) for n, p in loaded.named_parameters()])

buf.seek(0)
try:
    torch.load(buf)
except pickle.UnpicklingError as e:
    print(type(e).__name__ + ": " + str(e))
