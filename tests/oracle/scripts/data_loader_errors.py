# DataLoader argument checks raise torch's ValueErrors.
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler

data = list(range(6))
cases = [
    dict(shuffle=True, sampler=SequentialSampler(data)),
    dict(batch_sampler=BatchSampler(SequentialSampler(data), 2, False), batch_size=3),
    dict(num_workers=-1),
    dict(batch_size=None, drop_last=True),
    dict(prefetch_factor=2),
    dict(persistent_workers=True),
]
for kwargs in cases:
    try:
        DataLoader(data, **kwargs)
    except ValueError as e:
        print("ValueError:", e)
for bad in [0, -1, 2.5]:
    try:
        BatchSampler(data, bad, False)
    except ValueError as e:
        print("ValueError:", e)
