# A custom Dataset returning dicts and tuples; default_collate stacks tensors, turns floats
# into float64 and ints into int64, keeps strings as a list.
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i), -float(i)]), "sq": i * i, "half": i / 2, "id": f"#{i}"}


for batch in DataLoader(Squares(), batch_size=2):
    print({k: v for k, v in batch.items()})
pairs = [(torch.tensor([1, 2]), 0.5), (torch.tensor([3, 4]), 1.5)]
print(next(iter(DataLoader(pairs, batch_size=2))))
print(next(iter(DataLoader(pairs, batch_size=None))))
print(list(DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))))
