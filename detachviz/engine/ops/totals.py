"""Products, NaN-skipping sums and whole-tensor medians: prod (ProdBackward0 over everything,
ProdBackward1 along a dim), nansum (NansumBackward0), nanmean (torch's nansum / count of
non-NaNs, so its grad_fn is DivBackward0), median()/nanmedian() (MedianBackward0,
NanmedianBackward0).

prod's backward is torch's prod_backward: grad * result / input when the input has no zero,
else the zero-safe form (the product of the elements before times the product of those
after, from two exclusive cumprods), written with engine ops on tensors so a create_graph
backward is differentiable again.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import apply
from detachviz.engine.node import RESULT, Saved, node_class
from detachviz.engine.ops import arith, join, view
from detachviz.engine.ops.layout import flip
from detachviz.engine.ops.scatter import dim_index, np_or
from detachviz.engine.tensor import Tensor, wrap

_INTS = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _out_dtype(x: Tensor, dtype: Any) -> dtypes.dtype:
    if dtype is not None:
        return dtype
    return dtypes.int64 if x._dtype.name in _INTS else x._dtype


def _seq_prod(a: np.ndarray, axis: int | None, keepdims: bool = False) -> np.ndarray:
    """The product in order along the axis (torch multiplies along a dim in order; a long
    contiguous whole-tensor product is vectorised in torch and may differ in the last bit)."""
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.shape[axis] == 0:
        return np.prod(a, axis=axis, keepdims=keepdims)
    acc = np.multiply.accumulate(a, axis=axis)
    last = np.take(acc, [-1], axis=axis)
    return last if keepdims else np.squeeze(last, axis)


# ------------------------------------------------------------------------------ backward


def _safe_zeros_np(g: np.ndarray, x: np.ndarray, d: int) -> np.ndarray:
    if x.size == 0:
        return np.broadcast_to(g, x.shape).copy()
    xm = np.moveaxis(x, d, 0)
    before = np.ones_like(xm)
    after = np.ones_like(xm)
    for i in range(1, xm.shape[0]):
        before[i] = before[i - 1] * xm[i - 1]
    for i in range(xm.shape[0] - 2, -1, -1):
        after[i] = after[i + 1] * xm[i + 1]
    return g * np.moveaxis(before * after, 0, d)


def _safe_zeros_t(g: Tensor, x: Tensor, d: int) -> Tensor:
    from detachviz.engine.ops.scan import cumprod

    if x._data.size == 0:
        return view.expand(g, x._data.shape)
    size = x._data.shape[d]
    ones_shape = list(x._data.shape)
    ones_shape[d] = 1
    ones = wrap(np.ones(ones_shape, dtype=x._data.dtype), x._dtype)
    normal = cumprod(join.cat([ones, view.narrow(x, d, 0, size - 1)], d), d)
    rev = join.cat([ones, flip(view.narrow(x, d, 1, size - 1), d)], d)
    reverse = flip(cumprod(rev, d), d)
    return arith.mul(g, arith.mul(normal, reverse))


def _unsqueeze(k: Any, v: Any, d: int) -> Any:
    return np_or(k, lambda: np.expand_dims(v, d), lambda: v.unsqueeze(d))


def _prod_all_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, result = s
    xd = k.data(x)
    if xd.ndim == 0:
        return g
    if np.all(xd != 0):
        return g * (result / x)

    def arrays() -> Any:
        return _safe_zeros_np(np.broadcast_to(g, (1,)), xd.reshape(-1), 0).reshape(xd.shape)

    def tensors() -> Any:
        flat = view.view(x.contiguous(), -1)
        return view.reshape(_safe_zeros_t(view.reshape(g, 1), flat, 0), xd.shape)

    return np_or(k, arrays, tensors)


def _prod_dim_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, result = s
    xd = k.data(x)
    if xd.ndim == 0:
        return g
    d = dim_index(a.dim, xd.ndim)
    if not a.keepdim:
        g, result = _unsqueeze(k, g, d), _unsqueeze(k, result, d)
    if np.all(xd != 0):
        return g * (result / x)
    return np_or(k, lambda: _safe_zeros_np(g, xd, d), lambda: _safe_zeros_t(g, x, d))


def _prod_all_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    x = p[0]
    if x.ndim == 0:
        return t
    dx = _safe_zeros_np(np.ones((1,), dtype=x.dtype), x.reshape(-1), 0)
    return np.asarray(np.dot(dx, t.reshape(-1)))


def _prod_dim_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    x = p[0]
    if x.ndim == 0:
        return t
    d = dim_index(a.dim, x.ndim)
    dx = _safe_zeros_np(np.ones((1,) * x.ndim, dtype=x.dtype), x, d)
    return np.sum(dx * np.broadcast_to(t, x.shape), axis=d, keepdims=a.keepdim)


_PROD_SAVED = (Saved("self", 0, (0,)), Saved("result", RESULT, (0,)))
PROD0 = node_class("ProdBackward0", (_prod_all_back,), saved=_PROD_SAVED, jvp=(_prod_all_jvp,))
PROD1 = node_class(
    "ProdBackward1",
    (_prod_dim_back,),
    saved=_PROD_SAVED,
    attrs=("dim", "keepdim"),
    jvp=(_prod_dim_jvp,),
)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    dt = _out_dtype(input, dtype)
    a = input._data.astype(dt.np) if dt.np != input._data.dtype else input._data
    cls0, cls1 = (PROD0, PROD1) if dt.is_floating_point else (None, None)
    if dim is None:
        return apply(cls0, "prod", (input,), _seq_prod(a, None), dt)
    d = dim_index(operator.index(dim), max(a.ndim, 1))
    data = _seq_prod(a, d, keepdim) if a.ndim else a.copy()
    return apply(cls1, "prod", (input,), data, dt, (d, keepdim))


# ------------------------------------------------------------------------- nansum / nanmean


def _nansum_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    (x,) = s
    xd = k.data(x)
    sizes = xd.shape
    if a.dim and not a.keepdim and sizes:
        for d in sorted(dim_index(i, len(sizes)) for i in a.dim):
            g = _unsqueeze(k, g, d)
    keep = ~np.isnan(xd)  # torch's grad * self.isnan().logical_not(): MulBackward0
    return np_or(
        k,
        lambda: np.broadcast_to(g, sizes) * keep,
        lambda: arith.mul(k.expand(g, sizes), wrap(keep)),
    )


def _nansum_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    x = p[0]
    tm = np.where(np.isnan(x), 0.0, np.broadcast_to(t, x.shape)).astype(x.dtype)
    axes = None if not a.dim else tuple(dim_index(i, max(x.ndim, 1)) for i in a.dim)
    if x.ndim == 0:
        return tm
    return np.sum(tm, axis=axes, keepdims=a.keepdim)


NANSUM = node_class(
    "NansumBackward0",
    (_nansum_back,),
    saved=(Saved("self", 0, (0,)),),
    attrs=("dim", "keepdim"),
    jvp=(_nansum_jvp,),
)


def _dims(dim: Any, nd: int) -> tuple[int, ...]:
    if dim is None:
        return ()
    ds = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(dim_index(operator.index(d), max(nd, 1)) for d in ds)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    dt = _out_dtype(input, dtype)
    a = input._data.astype(dt.np) if dt.np != input._data.dtype else input._data
    dims = _dims(dim, a.ndim)
    zeroed = np.where(np.isnan(a), 0, a) if dt.is_floating_point else a
    if dims and a.ndim:
        data = np.sum(zeroed, axis=dims, keepdims=keepdim, dtype=dt.np)
    else:
        from detachviz.engine import summation

        flat = np.ascontiguousarray(zeroed)
        data = summation.sum_all(flat) if dt.is_floating_point else np.sum(flat)
        if keepdim and a.ndim:
            data = np.reshape(data, (1,) * a.ndim)
    cls = NANSUM if dt.is_floating_point else None
    return apply(cls, "nansum", (input,), np.asarray(data, dtype=dt.np), dt, (dims, keepdim))


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    if not input._dtype.is_floating_point and dtype is None:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{input._dtype.legacy.replace('Tensor', '')}"
        )
    from detachviz.engine.ops import compare, reduce

    factor = reduce.sum(compare.logical_not(compare.isnan(input)), dim, keepdim)
    return arith.div(nansum(input, dim, keepdim, dtype=dtype), factor)


# --------------------------------------------------------------------------------------------
# median / nanmedian over everything: the lower median (torch's), NaN-propagating for median,
# NaN-skipping for nanmedian; the gradient spreads evenly over the elements equal to it
# (torch's evenly_distribute_backward: NaNs count as equal to a NaN result). The dim forms
# (values and indices) stay refused: torch's index among ties comes from its nth_element.
# --------------------------------------------------------------------------------------------
def _median_mask(x: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.isnan(x) if np.isnan(value) else x == value


def _evenly_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, value = k.data(s[0]), k.data(s[1])
    mask = _median_mask(x, value)
    count = int(mask.sum())

    def tensors() -> Any:
        zeros = wrap(np.zeros(mask.shape, dtype=g._data.dtype), g._dtype)
        return join.masked_fill(zeros, wrap(mask), arith.div(g, count))

    return np_or(k, lambda: np.where(mask, g / count, np.zeros((), g.dtype)), tensors)


def _evenly_fwd(t: Any, p: Any, o: Any, a: Any) -> Any:
    mask = _median_mask(p[0], o)
    return np.sum(np.where(mask, t, 0)) / mask.sum()


_MEDIAN_SAVED = (Saved("self", 0, (0,)), Saved("result", RESULT, (0,)))
MEDIAN0 = node_class("MedianBackward0", (_evenly_back,), saved=_MEDIAN_SAVED, jvp=(_evenly_fwd,))
NANMEDIAN0 = node_class(
    "NanmedianBackward0", (_evenly_back,), saved=_MEDIAN_SAVED, jvp=(_evenly_fwd,)
)


def _lower_median(a: np.ndarray, skip_nan: bool) -> np.ndarray:
    flat = a.reshape(-1)
    if flat.dtype.kind == "f":
        nan = np.isnan(flat)
        if skip_nan:
            flat = flat[~nan]
        elif nan.any():
            return np.asarray(np.nan, dtype=a.dtype)
    if flat.size == 0:  # torch's NaN, and for integers the lowest value
        low = (
            np.nan if a.dtype.kind == "f" else np.iinfo(a.dtype).min if a.dtype.kind in "iu" else 0
        )
        return np.asarray(low, dtype=a.dtype)
    return np.asarray(np.sort(flat, kind="stable")[(flat.size - 1) // 2], dtype=a.dtype)


def _median_op(name: str, cls: Any, skip_nan: bool) -> Any:
    def op(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
        if dim is not None:
            raise NotImplementedError(
                f"detachviz: torch.{name}(input, dim) is not supported (only {name}(input))"
            )
        data = _lower_median(input._data, skip_nan)
        diff = cls if input._dtype.is_floating_point else None
        return apply(diff, name, (input,), data, input._dtype)

    op.__name__ = name
    return op


median = _median_op("median", MEDIAN0, False)
nanmedian = _median_op("nanmedian", NANMEDIAN0, True)
