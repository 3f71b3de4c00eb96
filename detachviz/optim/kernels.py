"""The in-place updates optimizers make, computed as torch's CPU kernels compute them.

torch's AVX2 build fuses a multiply feeding an add into one FMA in `add_(t, alpha=a)`,
`lerp_` and `addcmul_` (checked element by element against torch 2.13 for sizes 1..1000);
`addcdiv_` divides after the multiply, so it rounds three times. Plain numpy rounds every
operation, so an Adam step written with the engine's `+`/`*` drifts from torch in the last bit
within a few steps. Each function here writes its result into the tensor with the engine's
`inplace` (one version bump, the op's name in the trace), under the caller's no_grad.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine.fma import fma32, fma64
from detachviz.engine.function import inplace
from detachviz.engine.tensor import Tensor, wrap


def _fma(a: Any, b: Any, c: np.ndarray) -> np.ndarray:
    """a*b + c rounded once, in c's float dtype (other dtypes: two roundings)."""
    if c.dtype == np.float32:
        return fma32(np.asarray(a, np.float32), np.asarray(b, np.float32), c)
    if c.dtype == np.float64:
        return fma64(a, b, c)
    return np.asarray(a * b + c, dtype=c.dtype)


def _scalar(x: np.ndarray, value: float) -> Any:
    """A python number as torch's kernel sees it: cast to the tensor's (opmath) dtype."""
    return x.dtype.type(value)


def add_(x: Tensor, other: Tensor, alpha: Any = 1.0) -> Tensor:
    """x.add_(other, alpha=alpha): x + alpha*other, fused (a 0-dim tensor alpha is its value)."""
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    if alpha == 1:
        return x.add_(other)
    od = other._data
    return inplace(x, "add_", None, lambda a: _fma(od, _scalar(a, alpha), a), (other,), (alpha,))


def add(x: Tensor, other: Tensor, alpha: Any = 1.0) -> Tensor:
    """x.add(other, alpha=alpha) as a new tensor."""
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    if alpha == 1:
        return x + other
    xd = x._data
    return wrap(_fma(other._data, _scalar(xd, alpha), xd), x.dtype)


def lerp_(x: Tensor, end: Tensor, weight: float) -> Tensor:
    """x.lerp_(end, weight): from x for |weight| < 0.5, from end otherwise (torch's two
    forms), each one FMA."""
    ed = end._data

    def values(a: np.ndarray) -> np.ndarray:
        w = _scalar(a, weight)
        diff = ed - a
        if abs(w) < 0.5:
            return _fma(w, diff, a)
        return _fma(w - a.dtype.type(1), diff, np.asarray(ed, a.dtype))

    return inplace(x, "lerp_", None, values, (end,), (weight,))


def addcmul_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """x.addcmul_(t1, t2, value=value): (value*t1)*t2 + x, the last two fused."""
    d1, d2 = t1._data, t2._data
    return inplace(
        x,
        "addcmul_",
        None,
        lambda a: _fma(_scalar(a, value) * d1, d2, a),
        (t1, t2),
        (value,),
    )


def addcmul(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    xd = x._data
    return wrap(_fma(_scalar(xd, value) * t1._data, t2._data, xd), x.dtype)


def addcdiv_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """x.addcdiv_(t1, t2, value=value): x + (value*t1)/t2."""
    d1, d2 = t1._data, t2._data
    return inplace(
        x,
        "addcdiv_",
        None,
        lambda a: a + _scalar(a, value) * d1 / d2,
        (t1, t2),
        (value,),
    )


def maximum_(x: Tensor, other: Tensor) -> Tensor:
    """torch.maximum(x, other, out=x)."""
    od = other._data
    return inplace(x, "maximum", None, lambda a: np.maximum(a, od), (other,))
