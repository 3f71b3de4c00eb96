# Samplers: Sequential, Random (with replacement), SubsetRandom, Weighted, and BatchSampler.
import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

torch.manual_seed(0)
print(list(SequentialSampler(range(4))))
print(list(RandomSampler(range(6), replacement=True, num_samples=10)))
print(list(SubsetRandomSampler([10, 20, 30, 40])))
print(list(WeightedRandomSampler([0.1, 0.1, 5.0, 0.1], num_samples=8)))
print(list(WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], num_samples=3, replacement=False)))
print(list(BatchSampler(RandomSampler(range(7)), batch_size=3, drop_last=False)))
data = list(range(100, 110))
loader = DataLoader(data, sampler=SubsetRandomSampler([0, 2, 4, 6]), batch_size=2)
print([b.tolist() for b in loader], len(loader))
loader = DataLoader(data, batch_sampler=BatchSampler(SequentialSampler(data), 4, True))
print([b.tolist() for b in loader], len(loader))
