"""Ops whose results are positions or counts, never differentiable (no grad_fn, as in torch):
nonzero/argwhere, count_nonzero, bincount, unique/unique_consecutive, searchsorted/bucketize,
tril_indices/triu_indices.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import apply
from detachviz.engine.ops.scatter import dim_index
from detachviz.engine.tensor import Tensor


def _kind(t: Tensor) -> str:
    return t._dtype.legacy.replace("Tensor", "")


def _long(data: Any) -> Tensor:
    return apply(None, "index", (), np.asarray(data, dtype=np.int64), dtypes.int64)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    a = input._data
    if as_tuple:
        where = np.nonzero(a.reshape(1) if a.ndim == 0 else a)
        return tuple(_long(w) for w in where)
    if a.ndim == 0:
        return _long(np.zeros((1 if a != 0 else 0, 0), dtype=np.int64))
    return _long(np.argwhere(a))


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    return nonzero(input)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    a = input._data
    if dim is None:
        return _long(np.count_nonzero(a))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(dim_index(operator.index(d), max(a.ndim, 1)) for d in dims)
    if a.ndim == 0:
        return _long(np.count_nonzero(a))
    return _long(np.count_nonzero(a, axis=axes))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:  # noqa: A002
    if input._dtype.is_floating_point:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_kind(input)}'")
    a = input._data
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and weights._data.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return _long(np.bincount(a.astype(np.int64), minlength=minlength))
    wd = weights._dtype if weights._dtype.is_floating_point else dtypes.float64
    counts = np.bincount(
        a.astype(np.int64), weights=weights._data.astype(np.float64), minlength=minlength
    )
    return apply(None, "bincount", (), counts.astype(wd.np), wd)


def _unique_rows(a: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    moved = np.moveaxis(a, d, 0)
    n = moved.shape[0]
    flat = moved.reshape(n, -1)
    order = sorted(range(n), key=lambda i: tuple(flat[i].tolist()))
    keys = [tuple(flat[i].tolist()) for i in order]
    firsts: list[int] = []
    inverse = np.zeros(n, dtype=np.int64)
    counts: list[int] = []
    for pos, i in enumerate(order):
        if pos == 0 or keys[pos] != keys[pos - 1]:
            firsts.append(i)
            counts.append(0)
        inverse[i] = len(firsts) - 1
        counts[-1] += 1
    uniq = np.moveaxis(moved[firsts], 0, d) if firsts else np.moveaxis(moved[:0], 0, d)
    return uniq, inverse, np.asarray(counts, dtype=np.int64)


def unique(
    input: Tensor,  # noqa: A002
    sorted: bool = True,  # noqa: A002 - torch's name
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """Sorted unique values (torch's CPU kernel sorts even when sorted=False)."""
    a = input._data
    if dim is None:
        uniq, inv, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        d = dim_index(dim, max(a.ndim, 1))
        uniq, inv, counts = _unique_rows(a, d)
    out = apply(None, "unique", (), uniq.astype(a.dtype), input._dtype)
    return _with_extras(out, inv, counts, return_inverse, return_counts)


def _with_extras(out: Tensor, inv: Any, counts: Any, want_inv: bool, want_counts: bool) -> Any:
    if not (want_inv or want_counts):
        return out
    res: tuple[Tensor, ...] = (out,)
    if want_inv:
        res += (_long(inv),)
    if want_counts:
        res += (_long(counts),)
    return res


def unique_consecutive(
    input: Tensor,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    a = input._data
    if dim is None:
        moved = a.reshape(-1, 1)
        shape_inv = a.shape
    else:
        d = dim_index(dim, max(a.ndim, 1))
        moved = np.moveaxis(a, d, 0).reshape(a.shape[d] if a.ndim else 1, -1)
        shape_inv = (moved.shape[0],)
    n = moved.shape[0]
    starts = [i for i in range(n) if i == 0 or not np.array_equal(moved[i], moved[i - 1])]
    inv = np.zeros(n, dtype=np.int64)
    for k, s in enumerate(starts):
        inv[s:] = k
    counts = np.diff(np.asarray(starts + [n], dtype=np.int64))
    if dim is None:
        uniq = a.reshape(-1)[starts]
    else:
        uniq = np.take(a, starts, axis=d)
    out = apply(None, "unique_consecutive", (), uniq, input._dtype)
    return _with_extras(out, inv.reshape(shape_inv), counts, return_inverse, return_counts)


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,  # noqa: A002
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data.astype(np.int64), axis=-1)
    vals = input._data if isinstance(input, Tensor) else np.asarray(input)
    how: Any = "right" if right else "left"
    if seq.ndim == 1:
        res = np.searchsorted(seq, vals, side=how)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor "
                f"{list(vals.shape)}"
            )
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        res = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v)])
        res = res.reshape(vals.shape)
    dt = dtypes.int32 if out_int32 else dtypes.int64
    return apply(None, "searchsorted", (), np.asarray(res, dtype=dt.np), dt)


def bucketize(
    input: Any,  # noqa: A002
    boundaries: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
) -> Tensor:
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _tri_indices(upper: bool) -> Any:
    def op(
        row: int,
        col: int,
        offset: int = 0,
        *,
        dtype: Any = None,
        device: Any = None,
        layout: Any = None,
    ) -> Tensor:
        dt = dtypes.int64 if dtype is None else dtype
        fn = np.triu_indices if upper else np.tril_indices
        rows, cols = fn(row, offset, col) if row > 0 and col > 0 else ([], [])
        data = np.stack([np.asarray(rows), np.asarray(cols)]).astype(dt.np).reshape(2, -1)
        return apply(None, op.__name__, (), data, dt)

    op.__name__ = "triu_indices" if upper else "tril_indices"
    return op


tril_indices = _tri_indices(False)
triu_indices = _tri_indices(True)
