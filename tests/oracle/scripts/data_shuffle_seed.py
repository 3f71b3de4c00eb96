# shuffle=True gives torch's order for a seed, a new order each epoch, and the same random
# stream afterwards; generator= makes the order independent of the global seed.
import torch
from torch.utils.data import DataLoader

for seed in [0, 1, 7]:
    torch.manual_seed(seed)
    loader = DataLoader(list(range(12)), batch_size=5, shuffle=True)
    print(seed, [b.tolist() for b in loader], [b.tolist() for b in loader], torch.rand(2))
g = torch.Generator()
g.manual_seed(123)
loader = DataLoader(list(range(8)), batch_size=8, shuffle=True, generator=g)
torch.manual_seed(5)
print([b.tolist() for b in loader], torch.randint(0, 100, (3,)))
