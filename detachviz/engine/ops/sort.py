"""Ordering along a dim: sort, argsort, topk (values and indices, as torch.return_types
namedtuples), msort. Without stable=True the order of tied values is torch's std::sort's
(engine/selection.py), as torch's CPU kernel leaves it. The values' backward scatters the
gradient back to the picked positions (zeros elsewhere); indices are never differentiable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import selection
from detachviz.engine.function import apply
from detachviz.engine.node import node_class
from detachviz.engine.ops.reduce import return_type
from detachviz.engine.ops.scatter import dim_index, np_or, scatter, scatter_np
from detachviz.engine.tensor import Tensor, wrap

sort_type = return_type("sort", ("values", "indices"))
topk_type = return_type("topk", ("values", "indices"))


def _introsort_row(row: list[float], descending: bool) -> list[int]:
    """The order libstdc++'s std::sort (what torch's CPU sort runs unless stable=True) leaves
    one row in, ties included."""
    q = [(v, j) for j, v in enumerate(row)]
    if descending:

        def less(x: Any, y: Any) -> bool:
            return (math.isnan(x[0]) and not math.isnan(y[0])) or x[0] > y[0]
    else:

        def less(x: Any, y: Any) -> bool:
            return (not math.isnan(x[0]) and math.isnan(y[0])) or x[0] < y[0]

    selection.sort(q, 0, len(q), less)
    return [j for _, j in q]


def _order(a: np.ndarray, d: int, descending: bool, stable: bool = True) -> np.ndarray:
    """The sorting order along `d` (NaN is the largest value, as in torch). stable: ties keep
    their original order both ways; else torch's std::sort order, which differs from the
    stable one only where a row longer than 16 (its insertion-sort cutoff) has ties."""
    order = _stable_order(a, d, descending)
    if stable or a.shape[d] <= 16:
        return order
    ranked = np.take_along_axis(a, order, axis=d)
    moved = np.moveaxis(ranked, d, -1)
    nan = np.isnan(moved) if moved.dtype.kind in "fc" else np.zeros(moved.shape, bool)
    tied = (moved[..., 1:] == moved[..., :-1]) | (nan[..., 1:] & nan[..., :-1])
    if not tied.any():
        return order
    rows = np.moveaxis(a, d, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    out = np.moveaxis(order, d, -1).reshape(flat.shape).copy()
    for r, has_ties in enumerate(tied.reshape(flat.shape[0], -1).any(axis=1)):
        if has_ties:
            out[r] = _introsort_row(flat[r].astype(np.float64).tolist(), descending)
    return np.moveaxis(out.reshape(rows.shape), -1, d)


def _stable_order(a: np.ndarray, d: int, descending: bool) -> np.ndarray:
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    n = a.shape[d]
    rev = np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    return n - 1 - rev  # type: ignore[no-any-return]


def _scatter_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    sizes = tuple(a.self_sym_sizes)
    if not sizes:
        return g
    d = a.dim % len(sizes)
    idx = a.indices._data.astype(np.intp)

    def arrays() -> Any:
        return scatter_np(np.zeros(sizes, g.dtype), d, idx, g, False)

    return np_or(k, arrays, lambda: scatter(wrap(np.zeros(sizes, g._data.dtype)), d, a.indices, g))


def _take_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    if not t.ndim:
        return t
    return np.take_along_axis(t, a.indices._data.astype(np.intp), axis=a.dim % t.ndim)


_ATTRS = ("dim", "indices", "self_sym_sizes")
SORT = node_class("SortBackward0", (_scatter_back,), attrs=_ATTRS, jvp=(_take_jvp,))
TOPK = node_class("TopkBackward0", (_scatter_back,), attrs=_ATTRS, jvp=(_take_jvp,))

_long = dtypes.int64


def _picked(
    x: Tensor, order: np.ndarray, d: int, cls: Any, name: str, dim: int, rtype: type
) -> Any:
    xd = x._data
    if xd.ndim == 0:
        indices = wrap(np.zeros((), np.int64), _long)
        return rtype(apply(cls, name, (x,), xd.copy(), x._dtype, (dim, indices, ())), indices)
    vals = np.take_along_axis(xd, order, axis=d)
    indices = wrap(order.astype(np.int64), _long)
    return rtype(apply(cls, name, (x,), vals, x._dtype, (dim, indices, xd.shape)), indices)


def sort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = None) -> Any:
    d = dim_index(dim, x._data.ndim)
    nd = x._data.ndim
    order = _order(x._data, d, descending, bool(stable)) if nd else np.zeros((), np.intp)
    return _picked(x, order, d, SORT, "sort", dim, sort_type)


def argsort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    d = dim_index(dim, x._data.ndim)
    if not x._data.ndim:
        return wrap(np.zeros((), np.int64), _long)
    return wrap(_order(x._data, d, descending, bool(stable)).astype(np.int64), _long)


def msort(x: Tensor) -> Tensor:
    return sort(x, 0).values  # type: ignore[no-any-return]


def topk(
    x: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,  # noqa: A002
) -> Any:
    nd = x._data.ndim
    d = dim_index(dim, nd)
    size = x._data.shape[d] if nd else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if not nd:
        return _picked(x, np.zeros((), np.intp), d, TOPK, "topk", dim, topk_type)
    moved = np.moveaxis(x._data, d, -1)
    rows = moved.reshape(-1, moved.shape[-1]).astype(np.float64).tolist()
    picked = [selection.topk_order(r, k, largest, sorted) for r in rows]
    order = np.moveaxis(np.array(picked, dtype=np.intp).reshape(moved.shape[:-1] + (k,)), -1, d)
    return _picked(x, order, d, TOPK, "topk", dim, topk_type)
