# torch.save / torch.load of tensors and containers through a file and a BytesIO.
import io
import os
import tempfile

import torch

x = torch.arange(12.0).view(3, 4)
obj = {
    "x": x,
    "col": x[:, 2],
    "ints": torch.tensor([1, -2, 3]),
    "flag": torch.tensor([True]),
    "double": torch.tensor(0.1, dtype=torch.float64),
    "size": x.shape,
    "meta": [1, "a", (2.5, None)],
}
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "obj.pt")
    torch.save(obj, path)
    back = torch.load(path)
for k, v in back.items():
    print(k, v)
print(back["col"].stride(), back["col"].storage_offset(), back["col"].is_contiguous())
back["x"][0, 2] = 100.0
print(back["col"])
buf = io.BytesIO()
torch.save([torch.ones(2, requires_grad=True), torch.nn.Parameter(torch.zeros(1))], buf)
buf.seek(0)
a, p = torch.load(buf)
print(a, a.is_leaf, type(p).__name__, p.requires_grad)
