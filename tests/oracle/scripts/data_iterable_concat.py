# IterableDataset batches what it yields; ConcatDataset and Subset index through.
import torch
from torch.utils.data import ConcatDataset, DataLoader, IterableDataset, Subset, TensorDataset


class Countdown(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n, 0, -1))


print([b.tolist() for b in DataLoader(Countdown(7), batch_size=3)])
print([b.tolist() for b in DataLoader(Countdown(7), batch_size=3, drop_last=True)])
a = TensorDataset(torch.arange(3.0))
b = Subset(TensorDataset(torch.arange(10.0, 20.0)), [5, 1, 7])
both = ConcatDataset([a, b])
print(len(both), both.cumulative_sizes, [both[i][0].item() for i in range(len(both))], both[-1])
print([x[0].tolist() for x in DataLoader(a + b, batch_size=4)])
try:
    DataLoader(Countdown(3), shuffle=True)
except ValueError as e:
    print("ValueError:", e)
