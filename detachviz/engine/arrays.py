"""numpy helpers on shapes, strides and broadcasting that the op kit, the rules and the ops
share: fast broadcast views, summing a gradient back to a shape, reduction counts, dimension
checks, and the memory geometry of views (windows, density, overlap). No tensors here: only
numpy arrays and the duck-typed `_data` / `_base` of the tensor that asks."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from detachviz.engine import summation

_ndarray = np.ndarray


# NOTE: numpy 2 converts a python scalar operand on every ufunc call, which on a 20-element
# array costs more than the arithmetic; hot paths use these read-only 0-d constants of the
# array's own dtype instead (same values, same result dtype, same rounding)
def _consts(value: int) -> dict[Any, np.ndarray]:
    out = {}
    for t in (np.float16, np.float32, np.float64):
        c = np.full((), value, dtype=t)
        c.flags.writeable = False
        out[np.dtype(t)] = c
    return out


ZERO_OF = _consts(0)
ONE_OF = _consts(1)
_add_reduce = np.add.reduce


def broadcast(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`np.broadcast_to(a, shape)` (a read-only view with 0 strides on the broadcast dims),
    built directly for a C-contiguous `a`: np.broadcast_to's Python wrapper costs several
    times the op on small tensors."""
    if not a.flags.c_contiguous:
        return np.broadcast_to(a, shape)
    try:
        strides = _broadcast_strides(a.shape, a.strides, shape)
    except TypeError:  # unhashable shape (a list)
        strides = _broadcast_strides.__wrapped__(a.shape, a.strides, shape)
    if strides is None:
        return np.broadcast_to(a, shape)  # raises numpy's error
    try:
        # NOTE: positional arguments: ndarray() parses keywords slowly
        out = _ndarray(shape, a.dtype, a, 0, strides)
    except (TypeError, ValueError, BufferError):
        return np.broadcast_to(a, shape)
    out.setflags(write=False)
    return out


# NOTE: an expand (and a reduction's backward) asks for the same few geometries over and over
@functools.lru_cache(maxsize=1024)
def _broadcast_strides(
    have: tuple[int, ...], strides: tuple[int, ...], shape: tuple[int, ...]
) -> tuple[int, ...] | None:
    """The strides of `broadcast`'s view, or None where numpy must decide (or refuse)."""
    lead = len(shape) - len(have)
    if lead < 0:
        return None
    out = [0] * lead
    k = lead
    for d, st in zip(have, strides):
        t = shape[k]
        k += 1
        if d == t:
            out.append(st)
        elif d == 1 and t >= 0:
            out.append(0)
        else:
            return None
    return tuple(out)


def sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    have = g.shape
    if have == shape:
        return g
    try:
        axes, how = _sum_plan(have, shape)
    except TypeError:  # unhashable shape (a list)
        axes, how = _sum_plan.__wrapped__(have, shape)
    if how is _ONE:  # NOTE: to one value, as torch's sum_to adds it
        return np.asarray(summation.sum_all(g), dtype=g.dtype).reshape(shape)
    if axes:  # torch's one keepdim sum over all of them: in its order where that is known
        summed = summation.over(g, axes)
        if summed is not None:
            return summed.reshape(shape)
        if how is _LEAD:  # the reduction's own result is the shape
            return _add_reduce(g, axis=axes)
    g = _add_reduce(g, axis=axes, keepdims=True) if axes else g
    return g.reshape(shape)


_LEAD, _ONE, _KEEP = "lead", "one", "keep"  # how sum_to reduces (see _sum_plan)


@functools.lru_cache(maxsize=1024)
def _sum_plan(have: tuple[int, ...], shape: tuple[int, ...]) -> tuple[tuple[int, ...], str]:
    """The axes to sum a gradient of shape `have` over to undo broadcasting to `shape`, and
    how: `_ONE` to a single value, `_LEAD` leading dims only (the rest already `shape`),
    else `_KEEP` (a keepdims reduction, then a reshape)."""
    lead = len(have) - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and have[i + lead] != 1
    )
    if axes and math.prod(shape) == 1:
        return axes, _ONE
    if axes and len(axes) == lead and tuple(have[lead:]) == tuple(shape):
        return axes, _LEAD
    return axes, _KEEP


def keep_dims(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return _keep_dims_cached(shape, dims)
    except TypeError:  # unhashable dims (a list)
        return _keep_dims_cached.__wrapped__(shape, dims)


# NOTE: reduction backward asks this for the same few (shape, dims) over and over
@functools.lru_cache(maxsize=1024)
def _keep_dims_cached(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    nd = len(shape)
    ds = {d % nd for d in dims} if nd else set()
    return tuple(1 if i in ds else s for i, s in enumerate(shape))


def reduced(sizes: tuple[int, ...], dims: tuple[int, ...]) -> int:
    try:
        return _reduced_cached(sizes, dims)
    except TypeError:  # unhashable dims (a list)
        return _reduced_cached.__wrapped__(sizes, dims)


@functools.lru_cache(maxsize=1024)
def _reduced_cached(sizes: tuple[int, ...], dims: tuple[int, ...]) -> int:
    k = 1
    for d in {d % len(sizes) for d in dims} if sizes else ():
        k *= sizes[d]
    return k


def norm_dims(dim: Any, nd: int) -> tuple[int, ...]:
    m = nd if nd > 1 else 1
    if dim.__class__ is int and -m <= dim < m:
        return (dim,)  # the common case: one dim in range
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    for d in dims:
        if not -m <= d < m:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], but got {d})"
            )
    return dims


def strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def region(a: np.ndarray, size: Any, stride: Any, offset: int) -> np.ndarray:
    """The strided window of a C-contiguous array that a view covered in its base."""
    return np.lib.stride_tricks.as_strided(
        a.reshape(-1)[offset:], size, tuple(st * a.itemsize for st in stride)
    )


def view_geometry(v: Any) -> tuple[tuple[int, ...], tuple[int, ...], int, tuple[int, ...]]:
    """(size, stride, offset, base shape) of view `v` inside its base, in the coordinates of
    a C-contiguous array of the base's shape (what the backward rules build)."""
    base = v._base
    bd = base._data
    item = bd.itemsize
    ptr = v._data.__array_interface__["data"][0]
    bptr = bd.__array_interface__["data"][0]
    size = v._data.shape
    stride = tuple(s // item for s in v._data.strides)
    offset = (ptr - bptr) // item
    if not bd.flags.c_contiguous:
        # NOTE: a base with another dense layout (a transposed result: `x.t() + 2` keeps it)
        geo = _c_order_geometry(bd, size, stride, offset)
        if geo is not None:
            stride, offset = geo
    return size, stride, offset, bd.shape


def _c_order_geometry(
    bd: np.ndarray, size: tuple[int, ...], stride: tuple[int, ...], offset: int
) -> tuple[tuple[int, ...], int] | None:
    """A memory-order window of dense `bd` as (stride, offset) over the C-order flat index of
    the same elements, or None when that is not one strided window."""
    n = bd.size
    if n == 0 or 0 in size or not dense(bd) or any(s < 0 for s in bd.strides):
        return None
    item = bd.itemsize
    # memory position -> C-order flat index of the element stored there
    where = np.empty(n, dtype=np.intp)
    wi = where.itemsize
    np.lib.stride_tricks.as_strided(where, bd.shape, tuple(s // item * wi for s in bd.strides))[
        ...
    ] = np.arange(n).reshape(bd.shape)
    idx = np.lib.stride_tricks.as_strided(where[offset:], size, tuple(s * wi for s in stride))
    nd = len(size)
    start = int(idx[(0,) * nd])
    cstride = []
    grid = np.full(size, start, dtype=np.intp)
    for k in range(nd):
        st = int(idx[tuple(1 if d == k else 0 for d in range(nd))]) - start if size[k] > 1 else 0
        cstride.append(st)
        grid += st * np.arange(size[k]).reshape([-1 if d == k else 1 for d in range(nd)])
    if not np.array_equal(grid, idx):
        return None
    return tuple(cstride), start


def dense(a: np.ndarray) -> bool:
    """torch's is_non_overlapping_and_dense: some permutation of the dims is contiguous."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    expected = a.itemsize
    for st, n in sorted((st, n) for n, st in zip(a.shape, a.strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def partial_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """torch's get_overlap_status(a, b) == Partial for two arrays over one storage."""
    if a.size == 0 or b.size == 0 or not dense(a) or not dense(b):
        return False  # NOTE: torch calls non-dense layouts "too hard" and lets them through
    ab = a.__array_interface__["data"][0]
    bb = b.__array_interface__["data"][0]
    ae = ab + a.nbytes
    be = bb + b.nbytes
    if ab == bb and ae == be:
        return a.strides != b.strides
    return ab < be and bb < ae
