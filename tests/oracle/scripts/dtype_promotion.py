# Type promotion between tensors and Python scalars.
import torch

i = torch.tensor([1, 2])
f = torch.tensor([1.0, 2.0])
d = torch.tensor([1.0, 2.0], dtype=torch.float64)
b = torch.tensor([True, False])
cases = [
    ("i+f", i + f),
    ("i+d", i + d),
    ("f+d", f + d),
    ("i*2", i * 2),
    ("i*2.5", i * 2.5),
    ("f*2", f * 2),
    ("i/2", i / 2),
    ("i//2", i // 2),
    ("b+b", b + b),
    ("b+i", b + i),
    ("b*1.0", b * 1.0),
    ("d*1", d * 1),
    ("i**2", i**2),
    ("f>1", f > 1),
]
for name, t in cases:
    print(f"{name:6s} {t.dtype} {t.tolist()}")
print(torch.result_type(i, 1.0), torch.promote_types(torch.int64, torch.float32))
