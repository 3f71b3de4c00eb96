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


# --------------------------------------------------------------------------------------------
# cummax / cummin (shapeops helper, round 6): the running extreme and where it was reached;
# among equal values the later index wins (torch compares with >= / <=), and a NaN, once
# reached, stays with its index. The backward scatters the gradient onto those indices
# (torch's cummaxmin_backward: zeros.scatter_add(dim, indices, grad)).
# --------------------------------------------------------------------------------------------
def _running(a: np.ndarray, d: int, better: Any) -> tuple[np.ndarray, np.ndarray]:
    am = np.moveaxis(a, d, 0)
    vals = np.empty_like(am)
    idx = np.zeros(am.shape, dtype=np.int64)
    for i in range(am.shape[0]):
        if i == 0:
            vals[0], idx[0] = am[0], 0
            continue
        x, prev = am[i], vals[i - 1]
        take = (
            np.isnan(x) | (~np.isnan(prev) & better(x, prev))
            if a.dtype.kind == "f"
            else (better(x, prev))
        )
        vals[i] = np.where(take, x, prev)
        idx[i] = np.where(take, i, idx[i - 1])
    return np.moveaxis(vals, 0, d), np.moveaxis(idx, 0, d)


def _cumext_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    (x,) = s
    xd = k.data(x)
    if xd.ndim == 0:
        return g
    d = dim_index(a.dim, xd.ndim)

    def arrays() -> Any:
        out = np.zeros(xd.shape, dtype=g.dtype)
        grids = list(np.indices(xd.shape, sparse=True))
        grids[d] = a.indices._data
        np.add.at(out, tuple(grids), g)
        return out

    def tensors() -> Any:
        from detachviz.engine.ops.scatter import scatter_add
        from detachviz.engine.tensor import wrap

        zeros = wrap(np.zeros(xd.shape, dtype=g._data.dtype), g._dtype)
        return scatter_add(zeros, d, a.indices, g)

    return np_or(k, arrays, tensors)


def _cumext_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    x = p[0]
    if x.ndim == 0:
        return t
    d = dim_index(a.dim, x.ndim)
    return np.take_along_axis(np.broadcast_to(t, x.shape), a.indices._data, axis=d)


def _cum_extreme(name: str, better: Any) -> tuple[Any, Any]:
    from detachviz.engine.ops.reduce import return_type

    cls = node_class(
        f"{name.capitalize()}Backward0",
        (_cumext_back,),
        saved=(Saved("self", 0, (0,)),),
        attrs=("dim", "indices"),
        jvp=(_cumext_jvp,),
    )
    rtype = return_type(name)

    def op(input: Tensor, dim: int) -> Any:  # noqa: A002
        from detachviz.engine.tensor import wrap

        a = input._data
        d = dim_index(dim, max(a.ndim, 1))
        if a.ndim == 0:
            vals, idx = a.copy(), np.zeros((), dtype=np.int64)
        elif a.shape[d] == 0:
            vals, idx = a.copy(), np.zeros(a.shape, dtype=np.int64)
        else:
            vals, idx = _running(a, d, better)
        indices = wrap(idx, dtypes.int64)
        diff = cls if input._dtype.is_floating_point else None
        values = apply(diff, name, (input,), vals, input._dtype, (d, indices))
        return rtype(values, indices)

    op.__name__ = name
    return cls, op


CUMMAX, cummax = _cum_extreme("cummax", np.greater_equal)
CUMMIN, cummin = _cum_extreme("cummin", np.less_equal)
