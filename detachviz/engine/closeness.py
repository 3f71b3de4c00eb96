"""torch.isclose / Tensor.isclose: elementwise |a - b| <= atol + rtol * |b| as a bool tensor."""

from __future__ import annotations

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import ops
from detachviz.engine.tensor import _SCALAR_NAMES, Tensor


def isclose(
    x: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """torch.isclose: both tensors of one dtype, broadcast; equal infinities are close."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    if x._dtype is not other._dtype:
        a, b = _SCALAR_NAMES[x._dtype.name], _SCALAR_NAMES[other._dtype.name]
        raise RuntimeError(f"{a} did not match {b}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    try:
        with np.errstate(all="ignore"):
            data = np.isclose(x._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except ValueError:
        raise ops._broadcast_error(x._data.shape, other._data.shape) from None
    return ops._apply(None, "isclose", (x, other), np.asarray(data), dtypes.bool_)


Tensor.isclose = isclose  # type: ignore[attr-defined]
