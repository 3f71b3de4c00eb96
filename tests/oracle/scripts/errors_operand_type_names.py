import re

import numpy as np
import torch


def show(e):
    # detachviz does not say which argument position (see docs/semantics.md)
    print(type(e).__name__ + ": " + re.sub(r" \(position \d\)", "", str(e)))


t = torch.ones(2)
for f in (
    lambda: t.add(np.ones(2)),
    lambda: torch.add(t, np.ones(2)),
    lambda: t.mul("x"),
    lambda: torch.mul(t, [1, 2]),
):
    try:
        print(f())
    except Exception as e:
        show(e)
for f in (
    lambda: t @ 2,
    lambda: t + None,
    lambda: t.matmul([1.0, 2.0]),
    lambda: t * np.ones(2),
    lambda: t + [1],
):
    try:
        r = f()
        print(type(r).__name__, r)
    except Exception as e:
        show(e)
