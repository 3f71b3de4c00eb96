"""The deprecated `size_average` / `reduce` loss arguments, mapped onto a `reduction` as torch
maps them (torch.nn._reduction): either given overrides `reduction`, with a warning."""

from __future__ import annotations

import warnings
from typing import Any


def legacy_reduction(size_average: Any, reduce: Any, reduction: str, stacklevel: int = 3) -> str:
    """reduce=False -> 'none'; else size_average=False -> 'sum'; else 'mean' (None counts as
    True). Neither given: `reduction` unchanged, no warning."""
    if size_average is None and reduce is None:
        return reduction
    keep = True if reduce is None else reduce
    average = True if size_average is None else size_average
    legacy = "none" if not keep else ("mean" if average else "sum")
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{legacy}' instead.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return legacy
