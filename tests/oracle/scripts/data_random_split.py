# random_split with lengths and with fractions (the remainder goes to the first splits).
import torch
from torch.utils.data import TensorDataset, random_split

torch.manual_seed(0)
ds = TensorDataset(torch.arange(11.0))
train, val = random_split(ds, [8, 3])
print(type(train).__name__, len(train), len(val), train.indices, val.indices)
a, b, c = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print(list(a), list(b), list(c))
parts = random_split(range(7), [0.34, 0.33, 0.33], generator=torch.Generator().manual_seed(1))
print([len(p) for p in parts], [list(p) for p in parts])
print(val[0], ds[val.indices[0]])
try:
    random_split(ds, [5, 5])
except ValueError as e:
    print("ValueError:", e)
