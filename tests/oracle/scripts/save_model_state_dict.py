# Saving a model's state_dict and loading it into a fresh model gives the same outputs.
import io

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
fresh = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
print(fresh.load_state_dict(torch.load(buf, weights_only=True)))
x = torch.randn(2, 3)
print(torch.equal(model(x), fresh(x)), list(torch.load(io.BytesIO(buf.getvalue())).keys()))
print(fresh[2].bias)
