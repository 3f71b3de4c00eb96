"""Cumulative ops along a dim: cumsum and cumprod (and their in-place forms). cumsum's
backward is the reversed cumsum of the gradient; cumprod's is exact also where the input
has zeros (a recurrence along the dim, no division).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import apply, inplace
from detachviz.engine.node import RESULT, Saved, node_class
from detachviz.engine.ops.layout import flip
from detachviz.engine.ops.scatter import dim_index, np_or
from detachviz.engine.tensor import Tensor


def _out_dtype(x: Tensor, dtype: Any) -> dtypes.dtype:
    if dtype is not None:
        return dtype  # type: ignore[no-any-return]
    return x._dtype if x._dtype.is_floating_point else dtypes.int64


def _rev_cumsum_np(g: np.ndarray, d: int) -> np.ndarray:
    return np.flip(np.cumsum(np.flip(g, d), axis=d), d).copy()


CUMSUM = node_class(
    "CumsumBackward0",
    (
        lambda k, g, s, a: np_or(
            k,
            lambda: _rev_cumsum_np(g, a.dim % max(g.ndim, 1)) if g.ndim else g,
            lambda: flip(cumsum(flip(g, a.dim), a.dim), a.dim) if g._data.ndim else g,
        ),
    ),
    attrs=("dim",),
    jvp=(lambda t, p, o, a: np.cumsum(t, axis=a.dim % max(t.ndim, 1)).reshape(o.shape),),
)


def cumsum(x: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    d = dim_index(dim, x._data.ndim)
    dt = _out_dtype(x, dtype)
    data = np.cumsum(x._data.astype(dt.np), axis=d).reshape(x._data.shape)
    cls = CUMSUM if dt.is_floating_point else None
    return apply(cls, "cumsum", (x,), data, dt, (dim,))


def cumsum_(x: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    d = dim_index(dim, x._data.ndim)
    return inplace(
        x, "cumsum_", CUMSUM, lambda a: np.cumsum(a, axis=d).reshape(a.shape), (), (dim,)
    )


def _cumprod_grad_np(g: np.ndarray, x: np.ndarray, d: int) -> np.ndarray:
    """grad_i = prod_{k<i} x_k * S_i with S_i = g_i + x_{i+1} S_{i+1}: exact with zeros."""
    if x.ndim == 0:
        return g.copy()
    xm, gm = np.moveaxis(x, d, 0), np.moveaxis(np.broadcast_to(g, x.shape), d, 0)
    n = xm.shape[0]
    before = np.ones_like(xm)
    for i in range(1, n):
        before[i] = before[i - 1] * xm[i - 1]
    s = np.zeros_like(xm)
    acc = np.zeros_like(xm[0]) if n else None
    for i in range(n - 1, -1, -1):
        acc = gm[i] if i == n - 1 else gm[i] + xm[i + 1] * acc
        s[i] = acc
    return np.moveaxis(before * s, 0, d)


def _cumprod_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, out = s
    d = a.dim % max(np.ndim(k.data(x)), 1)

    def tensors() -> Any:
        if not np.all(x._data):
            raise NotImplementedError(
                "detachviz: a create_graph backward of cumprod over an input with zeros is not "
                "supported"
            )
        return flip(cumsum(flip(g * out, d), d), d) / x

    return np_or(k, lambda: _cumprod_grad_np(g, x, d), tensors)


def _cumprod_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    x = p[0]
    if x.ndim == 0:
        return t
    d = a.dim % x.ndim
    xm, tm, om = (np.moveaxis(v, d, 0) for v in (x, np.broadcast_to(t, x.shape), o))
    r = np.zeros_like(om)
    for i in range(xm.shape[0]):
        r[i] = tm[i] if i == 0 else r[i - 1] * xm[i] + om[i - 1] * tm[i]
    return np.moveaxis(r, 0, d)


CUMPROD = node_class(
    "CumprodBackward0",
    (_cumprod_back,),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim",),
    jvp=(_cumprod_jvp,),
)


def cumprod(x: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    d = dim_index(dim, x._data.ndim)
    dt = _out_dtype(x, dtype)
    data = np.cumprod(x._data.astype(dt.np), axis=d).reshape(x._data.shape)
    cls = CUMPROD if dt.is_floating_point else None
    return apply(cls, "cumprod", (x,), data, dt, (dim,))


def cumprod_(x: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    d = dim_index(dim, x._data.ndim)
    return inplace(
        x, "cumprod_", CUMPROD, lambda a: np.cumprod(a, axis=d).reshape(a.shape), (), (dim,)
    )
