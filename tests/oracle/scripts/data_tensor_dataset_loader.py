# TensorDataset + DataLoader: batch shapes, len(loader), the last short batch, drop_last.
import torch
from torch.utils.data import DataLoader, TensorDataset

x = torch.arange(20.0).view(10, 2)
y = torch.arange(10) % 3
ds = TensorDataset(x, y)
print(len(ds), ds[4])
for drop_last in [False, True]:
    loader = DataLoader(ds, batch_size=4, drop_last=drop_last)
    print(len(loader), [(tuple(xb.shape), yb.tolist()) for xb, yb in loader])
batch = next(iter(DataLoader(ds, batch_size=3)))
print(type(batch).__name__, len(batch), batch[0].dtype, batch[1].dtype)
try:
    TensorDataset(torch.zeros(3), torch.zeros(4))
except AssertionError as e:
    print("AssertionError:", e)
