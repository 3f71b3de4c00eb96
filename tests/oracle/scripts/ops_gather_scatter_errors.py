"""Index ops refuse what torch refuses, with torch's messages."""

import torch

x = torch.ones(2, 3)
cases = {
    "gather dims": lambda: x.gather(1, torch.tensor([0])),
    "gather bounds": lambda: x.gather(1, torch.tensor([[3]])),
    "index_select 2d": lambda: x.index_select(0, torch.tensor([[0]])),
    "topk k": lambda: x.topk(4),
    "tril 1d": lambda: torch.ones(3).tril(),
    "outer 2d": lambda: torch.outer(x, torch.ones(2)),
    "inv singular": lambda: torch.linalg.inv(torch.zeros(2, 2)),
    "cholesky": lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "inv shape": lambda: torch.linalg.inv(x),
}
for name, f in cases.items():
    try:
        f()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
print(issubclass(torch.linalg.LinAlgError, RuntimeError))
