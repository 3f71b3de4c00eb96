"""Reductions: sum and mean; the value-selecting and normalizing ones, max/min (all, along a
dim, elementwise), amax/amin, argmax/argmin, softmax, log_softmax and logsumexp; with their
backward rows and JVP rules side by side (vjps written once for numpy, `k = NP`, and Tensor,
`k = TT`, create_graph, modes; JVPs as forward_ad.py's per-input tangent rules).
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import softmax as kernels
from detachviz.engine import state, summation
from detachviz.engine.arrays import (
    keep_dims,
    norm_dims,
    reduced,
)
from detachviz.engine.function import (
    apply,
    binary,
)
from detachviz.engine.node import RESULT, Saved, node_class, set_jvp
from detachviz.engine.ops.unary import to_dtype
from detachviz.engine.rules import NP, TT, backward_op
from detachviz.engine.tensor import Tensor, wrap

_add_reduce: Any = np.add.reduce  # called without numpy's Python wrapper


_long = dtypes.int64


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _sum_keep(k: Any, g: Any, axes: tuple[int, ...]) -> Any:
    """g summed over `axes`, keeping them (the one reduction the rules need in both modes)."""
    if k is NP:
        return np.add.reduce(g, axis=axes, keepdims=True)  # np.sum without its Python layer
    return g.sum(axes, keepdim=True)


def _axes(dims: tuple[int, ...], nd: int) -> tuple[int, ...]:
    return tuple(sorted({d % nd for d in dims})) if nd else ()


def _keep_shape(sizes: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(sizes))


def _dim_error(nd: int, d: int) -> IndexError:
    n = builtins.max(nd, 1)  # NOTE: this module's own `max` is torch.max
    lo, hi = -n, n - 1
    return IndexError(
        f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})"
    )


def _one_dim(dim: Any, nd: int) -> int:
    d = int(dim)
    n = builtins.max(nd, 1)
    if not -n <= d < n:
        raise _dim_error(nd, d)
    return d % nd if nd else 0


def _floating_only(x: Tensor, kernel: str) -> None:
    if not x._dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_KERNEL_DTYPE.get(x._dtype.name, x._dtype.name)}'"
        )


_KERNEL_DTYPE = {"int64": "Long", "int32": "Int", "bool": "Bool", "int16": "Short", "uint8": "Byte"}


# --------------------------------------------------------------------------------------------
# max / min over everything: ties share the gradient evenly
# --------------------------------------------------------------------------------------------
def _evenly(k: Any, g: Any, s: Any, a: Any) -> Any:
    # NOTE: the all-reduce max/min spreads the gradient evenly over tied maxima (torch's
    # evenly_distribute_backward); the dim overloads pick one index instead.
    mask = k.data(s[0]) == k.data(s[1])
    if k is TT:
        # torch's evenly_distribute_backward: zeros.masked_fill_(mask, grad / count)
        zeros = wrap(np.zeros(mask.shape, dtype=g._data.dtype), g._dtype)
        return zeros.masked_fill(wrap(mask), g / k.const(int(mask.sum())))
    return k.where0(mask, k.expand(g, mask.shape) / int(mask.sum()))


def _evenly_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    mask = p[0] == out
    return np.sum(np.where(mask, t, 0)) / mask.sum()


MAX1 = node_class(
    "MaxBackward1", (_evenly,), saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,)))
)
MIN1 = node_class(
    "MinBackward1", (_evenly,), saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,)))
)
set_jvp(MAX1, (_evenly_jvp,))
set_jvp(MIN1, (_evenly_jvp,))


# --------------------------------------------------------------------------------------------
# max / min along a dim: (values, indices); the gradient goes to the selected index only
# --------------------------------------------------------------------------------------------
class _ReturnType(tuple):
    """Base of torch.return_types.* namedtuples: prints as torch does."""

    __slots__ = ()

    def __repr__(self) -> str:
        body = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))  # type: ignore[attr-defined]
        return f"torch.return_types.{type(self).__name__}(\n{body})"


def return_type(name: str, fields: tuple[str, ...] = ("values", "indices")) -> type:
    """A torch.return_types.<name> namedtuple class (printing as torch's)."""
    cls = type(name, (_ReturnType, namedtuple(name, fields)), {"__slots__": ()})
    cls.__module__ = "torch.return_types"
    cls.__qualname__ = name
    return cls


max_type = return_type("max")
min_type = return_type("min")


def _onehot(sizes: tuple[int, ...], dim: int, idx: np.ndarray, keepdim: bool) -> np.ndarray:
    """A bool mask of `sizes`, True where the reduction along `dim` picked its element."""
    mask = np.zeros(sizes, dtype=bool)
    if not sizes:
        mask[()] = True
        return mask
    ik = idx if keepdim else np.expand_dims(idx, dim)
    np.put_along_axis(mask, ik, True, axis=dim)
    return mask


def _select_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    dim, keepdim, idx, sizes = a
    if k is TT and sizes:
        # torch's value_selecting_reduction_backward: zeros.scatter_(dim, index, grad)
        from detachviz.engine.ops.scatter import scatter

        ik = idx if keepdim else idx.unsqueeze(dim)
        zeros = wrap(np.zeros(sizes, dtype=g._data.dtype), g._dtype)
        return scatter(zeros, dim, ik, g if keepdim else g.unsqueeze(dim))
    mask = _onehot(sizes, dim, idx._data, keepdim)
    gk = k.reshape(g, _keep_shape(sizes, (dim,))) if sizes else g
    return k.where0(mask, k.expand(gk, sizes))


def _select_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    dim, keepdim, idx, sizes = a
    if not sizes:
        return t
    ik = idx._data if keepdim else np.expand_dims(idx._data, dim)
    r = np.take_along_axis(t, ik, axis=dim)
    return r if keepdim else np.squeeze(r, dim)


_SELECT_ATTRS = ("dim", "keepdim", "indices", "self_sym_sizes")
MAX0 = node_class("MaxBackward0", (_select_back,), attrs=_SELECT_ATTRS)
MIN0 = node_class("MinBackward0", (_select_back,), attrs=_SELECT_ATTRS)
set_jvp(MAX0, (_select_jvp,))
set_jvp(MIN0, (_select_jvp,))


def _reduce_dim(
    x: Tensor, dim: Any, keepdim: bool, arg: Any, cls: Any, name: str, rtype: type
) -> Any:
    xd = x._data
    d = _one_dim(dim, xd.ndim)
    if xd.ndim and xd.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if xd.ndim:
        idx = arg(xd, axis=d, keepdims=keepdim).astype(np.int64)
        ik = idx if keepdim else np.expand_dims(idx, d)
        vals = np.take_along_axis(xd, ik, axis=d)
        vals = vals if keepdim else np.squeeze(vals, d)
    else:
        idx, vals = np.array(0, dtype=np.int64), xd.copy()
    indices = wrap(idx, _long)
    values = apply(cls, name, (x,), vals, x._dtype, (d, keepdim, indices, xd.shape))
    return rtype(values, indices)


def _extreme(
    fn: Any, arg: Any, cls_all: Any, cls_dim: Any, pair: Any, name: str, rtype: type
) -> Any:
    def op(x: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
        if isinstance(dim, Tensor):
            return pair(x, dim)
        if dim is None:
            if x._data.size == 0:
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument."
                )
            return apply(cls_all, name, (x,), fn(x._data), x._dtype)
        return _reduce_dim(x, dim, keepdim, arg, cls_dim, name, rtype)

    op.__name__ = name
    return op


# --------------------------------------------------------------------------------------------
# maximum / minimum (elementwise): ties split the gradient in half
# --------------------------------------------------------------------------------------------
def _pair_weights(x: Any, y: Any, wins: Any) -> Any:
    # NOTE: where x == y each side gets half the gradient (torch's maximum/minimum backward)
    return np.where(x == y, 0.5, np.where(wins(x, y), 1.0, 0.0))


def _pair_rules(wins: Any) -> tuple[Any, ...]:
    # saved in torch's order: s[0] is `other`, s[1] is `self`
    def vx(k: Any, g: Any, s: Any, a: Any) -> Any:
        w = _pair_weights(k.data(s[1]), k.data(s[0]), wins)
        return g * k.const(w.astype(np.asarray(k.data(g)).dtype))

    def vy(k: Any, g: Any, s: Any, a: Any) -> Any:
        w = _pair_weights(k.data(s[0]), k.data(s[1]), wins)
        return g * k.const(w.astype(np.asarray(k.data(g)).dtype))

    return vx, vy


MAXIMUM = node_class(
    "MaximumBackward0",
    _pair_rules(np.greater),
    saved=(Saved("other", 1, (0, 1)), Saved("self", 0, (0, 1))),
)
MINIMUM = node_class(
    "MinimumBackward0",
    _pair_rules(np.less),
    saved=(Saved("other", 1, (0, 1)), Saved("self", 0, (0, 1))),
)
set_jvp(
    MAXIMUM,
    (
        lambda t, p, o, a: t * _pair_weights(p[0], p[1], np.greater),
        lambda t, p, o, a: t * _pair_weights(p[1], p[0], np.greater),
    ),
)
set_jvp(
    MINIMUM,
    (
        lambda t, p, o, a: t * _pair_weights(p[0], p[1], np.less),
        lambda t, p, o, a: t * _pair_weights(p[1], p[0], np.less),
    ),
)


def maximum(x: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(
            f"maximum(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )
    return binary(MAXIMUM, np.maximum, "maximum", x, other)


def minimum(x: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(
            f"minimum(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )
    return binary(MINIMUM, np.minimum, "minimum", x, other)


max = _extreme(np.max, np.argmax, MAX1, MAX0, maximum, "max", max_type)  # noqa: A001
min = _extreme(np.min, np.argmin, MIN1, MIN0, minimum, "min", min_type)  # noqa: A001


# --------------------------------------------------------------------------------------------
# amax / amin: along dims, ties share evenly within each slice
# --------------------------------------------------------------------------------------------
def _evenly_dims(k: Any, g: Any, s: Any, a: Any) -> Any:
    dims, keepdim = a
    x, out = k.data(s[0]), k.data(s[1])
    axes = _axes(dims, x.ndim)
    keep = _keep_shape(x.shape, axes)
    mask = x == np.reshape(out, keep)
    count = np.sum(mask, axis=axes, keepdims=True)
    gk = k.reshape(g, keep)
    if k is TT:
        # torch's scale_grad_by_count: (grad / count) * mask
        return (gk / k.const(count.astype(g._data.dtype))) * k.const(mask)
    return k.where0(
        mask, k.expand(gk, x.shape) / k.const(count.astype(np.asarray(k.data(g)).dtype))
    )


def _evenly_dims_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    dims, keepdim = a
    x = p[0]
    axes = _axes(dims, x.ndim)
    mask = x == np.reshape(out, _keep_shape(x.shape, axes))
    r = np.sum(np.where(mask, t, 0), axis=axes, keepdims=keepdim)
    return r / np.sum(mask, axis=axes, keepdims=keepdim)


AMAX = node_class(
    "AmaxBackward0",
    (_evenly_dims,),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim", "keepdim"),
)
AMIN = node_class(
    "AminBackward0",
    (_evenly_dims,),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim", "keepdim"),
)
set_jvp(AMAX, (_evenly_dims_jvp,))
set_jvp(AMIN, (_evenly_dims_jvp,))


def _amaxmin(fn: Any, cls: Any, name: str) -> Any:
    def op(x: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
        xd = x._data
        dims = norm_dims(dim, xd.ndim)
        axes = _axes(dims, xd.ndim) if dims else tuple(range(xd.ndim))
        data = fn(xd, axis=axes or None, keepdims=keepdim) if xd.ndim else xd.copy()
        return apply(cls, name, (x,), np.asarray(data), x._dtype, (axes, keepdim))

    op.__name__ = name
    return op


amax = _amaxmin(np.max, AMAX, "amax")
amin = _amaxmin(np.min, AMIN, "amin")


# --------------------------------------------------------------------------------------------
# argmax / argmin (not differentiable)
# --------------------------------------------------------------------------------------------
def _arg(fn: Any, name: str) -> Any:
    def op(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        xd = x._data
        if dim is None:
            if xd.size == 0:
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            r = np.asarray(fn(xd.reshape(-1)), dtype=np.int64)
            if keepdim:
                r = r.reshape((1,) * xd.ndim)
        else:
            d = _one_dim(dim, xd.ndim)
            r = fn(xd, axis=d, keepdims=keepdim).astype(np.int64) if xd.ndim else np.array(0)
        return apply(None, name, (x,), np.asarray(r, dtype=np.int64), _long)

    op.__name__ = name
    return op


argmax = _arg(np.argmax, "argmax")
argmin = _arg(np.argmin, "argmin")


# --------------------------------------------------------------------------------------------
# softmax, log_softmax, logsumexp
# --------------------------------------------------------------------------------------------
def _softmax_back(k: Any, g: Any, y: Any, a: Any) -> Any:
    if k is NP and (exact := kernels.backward(g, y, a.dim, False)) is not None:
        return exact
    return y * (g - _sum_keep(k, g * y, (a.dim,)))


def _log_softmax_back(k: Any, g: Any, y: Any, a: Any) -> Any:
    if k is NP and (exact := kernels.backward(g, y, a.dim, True)) is not None:
        return exact
    return g - k.exp(y) * _sum_keep(k, g, (a.dim,))


def _keep(k: Any, t: Any, a: Any) -> Any:
    return _sum_keep(k, t, (a.dim,))


# torch's _softmax_backward_data / _log_softmax_backward_data under create_graph: one node each
SOFTMAX_BACK = backward_op(
    "SoftmaxBackwardDataBackward0",
    _softmax_back,
    lambda k, gg, go, y, a: gg * go - gg * _keep(k, go * y, a) - go * _keep(k, gg * y, a),
    attrs=("dim",),
    saved=("grad_output", "output"),
    jvp_inputs=lambda k, t, go, y, a: t * (go - _keep(k, go * y, a)) - y * _keep(k, go * t, a),
)
LOG_SOFTMAX_BACK = backward_op(
    "LogSoftmaxBackwardDataBackward0",
    _log_softmax_back,
    lambda k, gg, go, y, a: -(gg * k.exp(y)) * _keep(k, go, a),
    attrs=("dim",),
    saved=("grad_output", "output"),
    d_grad=lambda k, gg, go, y, a: gg - _keep(k, gg * k.exp(y), a),
)
SOFTMAX = node_class(
    "SoftmaxBackward0",
    (lambda k, g, s, a: SOFTMAX_BACK(k, g, s[0], a),),
    saved=(Saved("result", RESULT, (0,)),),
    attrs=("dim",),
)
set_jvp(SOFTMAX, (lambda t, p, o, a: o * (t - np.sum(t * o, axis=a.dim, keepdims=True)),))
LOG_SOFTMAX = node_class(
    "LogSoftmaxBackward0",
    (lambda k, g, s, a: LOG_SOFTMAX_BACK(k, g, s[0], a),),
    saved=(Saved("result", RESULT, (0,)),),
    attrs=("dim",),
)
set_jvp(LOG_SOFTMAX, (lambda t, p, o, a: t - np.sum(np.exp(o) * t, axis=a.dim, keepdims=True),))


def _normalized(x: Tensor, dim: Any, dtype: Any, cls: Any, name: str, log: bool) -> Tensor:
    if dtype is not None:
        x = to_dtype(x, dtype)
    _floating_only(x, f"{name}_lastdim_kernel_impl")
    xd = x._data
    d = _one_dim(dim, xd.ndim)
    if xd.ndim == 0:
        data = np.zeros_like(xd) if log else np.ones_like(xd)
    elif (exact := kernels.forward(xd, d, log)) is not None:
        data = exact
    else:
        # np.max / np.sum's own reductions, without their Python layer
        shifted = xd - np.maximum.reduce(xd, axis=d, keepdims=True)
        e = np.exp(shifted)
        ssum = np.add.reduce(e, axis=d, keepdims=True)
        data = shifted - np.log(ssum) if log else e / ssum
    # NOTE: a 0-dim input reduces over "dim 0" of nothing; the node keeps torch's normalized dim.
    # torch's (log_)softmax kernels write a contiguous result whatever the input's layout (a
    # later .view() of it is then a plain view, no copy)
    data = np.ascontiguousarray(data, dtype=xd.dtype)
    return apply(cls, name, (x,), data, x._dtype, (d,))


def softmax(x: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    if dim is None:
        raise TypeError('softmax() missing 1 required positional arguments: "dim"')
    return _normalized(x, dim, dtype, SOFTMAX, "softmax", False)


def log_softmax(x: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    if dim is None:
        raise TypeError('log_softmax() missing 1 required positional arguments: "dim"')
    return _normalized(x, dim, dtype, LOG_SOFTMAX, "log_softmax", True)


def _lse_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    dims, keepdim = a
    x, out = s[0], s[1]
    shape = np.shape(k.data(x))
    # logsumexp_backward: grad * (self - result).exp(), both unsqueezed unless keepdim
    axes = _axes(dims, len(shape))
    if not keepdim and shape:
        keep = _keep_shape(shape, axes)
        g, out = k.unsqueeze_multiple(g, axes, keep), k.unsqueeze_multiple(out, axes, keep)
    return g * k.exp(x - out)


def _lse_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    dims, keepdim = a
    x = p[0]
    axes = _axes(dims, x.ndim)
    w = np.exp(x - np.reshape(out, _keep_shape(x.shape, axes)))
    return np.sum(t * w, axis=axes or None, keepdims=keepdim) if x.ndim else t * w


LOGSUMEXP = node_class(
    "LogsumexpBackward0",
    (_lse_back,),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim", "keepdim"),
)
set_jvp(LOGSUMEXP, (_lse_jvp,))


def logsumexp(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if not x._dtype.is_floating_point:
        x = to_dtype(x, state.default_dtype)  # NOTE: torch promotes integer inputs
    xd = x._data
    dims = norm_dims(dim, xd.ndim)
    axes = _axes(dims, xd.ndim) if dims else tuple(range(xd.ndim))
    if xd.ndim == 0:
        data = xd.copy()
    else:
        m = np.max(xd, axis=axes, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        data = np.log(np.sum(np.exp(xd - m), axis=axes, keepdims=True)) + m
        if not keepdim:
            data = np.squeeze(data, axes)
    return apply(LOGSUMEXP, "logsumexp", (x,), data.astype(xd.dtype), x._dtype, (dims, keepdim))


# --------------------------------------------------------------------------------------------
# sum and mean
# --------------------------------------------------------------------------------------------
def _sum_back(k: Any, g: Any, sizes: tuple[int, ...], dims: Any, keepdim: bool) -> Any:
    if dims is not None and not keepdim and len(sizes):
        g = k.unsqueeze_multiple(g, _axes(dims, len(sizes)), keep_dims(sizes, dims))
    return k.expand(g, sizes)


SUM0 = node_class(
    "SumBackward0", (lambda k, g, s, a: k.expand(g, a.self_sym_sizes),), attrs=("self_sym_sizes",)
)
SUM1 = node_class(
    "SumBackward1",
    (lambda k, g, s, a: _sum_back(k, g, a.self_sym_sizes, a.dim, a.keepdim),),
    attrs=("dim", "keepdim", "self_sym_sizes"),
)
MEAN0 = node_class(
    "MeanBackward0",
    (lambda k, g, s, a: k.div_scalar(k.expand(g, a.self_sym_sizes), a.self_sym_numel),),
    attrs=("self_sym_numel", "self_sym_sizes"),
)


def _mean_back(k: Any, g: Any, a: Any) -> Any:
    sizes = a.self_sym_sizes
    n = reduced(sizes, a.dim)
    if k is NP:
        if not a.keepdim and len(sizes):
            g = g.reshape(keep_dims(sizes, a.dim))
        # NOTE: one ufunc call that broadcasts g into the input's shape: the quotients of the
        # expanded gradient, without building the expanded view first
        return np.divide(g, n, out=np.empty(sizes, g.dtype))
    return k.div_scalar(_sum_back(k, g, sizes, a.dim, a.keepdim), n)


MEAN1 = node_class(
    "MeanBackward1",
    (lambda k, g, s, a: _mean_back(k, g, a),),
    attrs=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
)


def _jvp_axes(dims: Any, nd: int) -> Any:
    return tuple(d % nd for d in dims) if nd else None


set_jvp(SUM0, (lambda t, p, o, a: np.sum(t),))
set_jvp(SUM1, (lambda t, p, o, a: np.sum(t, axis=_jvp_axes(a.dim, t.ndim), keepdims=a.keepdim),))
set_jvp(MEAN0, (lambda t, p, o, a: np.mean(t),))
set_jvp(MEAN1, (lambda t, p, o, a: np.mean(t, axis=_jvp_axes(a.dim, t.ndim), keepdims=a.keepdim),))


def sum(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    xd = x._data
    if dtype is not None:
        xd = xd.astype(dtype.np)
    elif not x._dtype.is_floating_point:
        xd = xd.astype(np.int64)  # NOTE: torch sums bool/int tensors as int64
    if dim is None:
        return apply(SUM0, "sum", (x,), summation.sum_all(xd), None, (xd.shape,))
    dims = norm_dims(dim, xd.ndim)
    axes = tuple(d % xd.ndim for d in dims) if xd.ndim else None
    data = _ordered_sum(xd, axes, keepdim)
    if data is None:
        data = xd.sum(axis=axes, keepdims=keepdim)
    if data.size == 1 and xd.size > 1:  # every element into one: the whole-tensor order
        data = np.asarray(summation.sum_all(xd), dtype=data.dtype).reshape(data.shape)
    return apply(SUM1, "sum", (x,), data, None, (dims, keepdim, xd.shape))


def mean(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if not x._dtype.is_floating_point and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {x._dtype.legacy.replace('Tensor', '')}"
        )
    xd = x._data if dtype is None else x._data.astype(dtype.np)
    n = xd.size
    if dim is None:
        data = (
            summation.sum_all(xd) / n if n and xd.dtype.kind == "f" else _mean_np(xd, None, False)
        )
        return apply(MEAN0, "mean", (x,), data, None, (n, xd.shape))
    nd = xd.ndim
    dims = norm_dims(dim, nd)
    axes: tuple[int, ...] | None
    if not nd:
        axes = None
    elif len(dims) == 1:
        axes = (dims[0] % nd,)
    else:
        axes = tuple(d % nd for d in dims)
    total = _ordered_sum(xd, axes, keepdim)
    if total is None or axes is None:
        data = _mean_np(xd, axes, keepdim)
    else:  # torch's CPU mean: the sum, then divided by the count in the sum's dtype
        data = total / xd.dtype.type(reduced(xd.shape, axes))
    return apply(MEAN1, "mean", (x,), data, None, (dims, keepdim, n, xd.shape))


def _ordered_sum(xd: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool) -> Any:
    """xd summed over `axes` in torch's order (`summation.over`), or None where unknown."""
    if not axes:
        return None
    data = summation.over(xd, tuple(sorted(axes)))
    if data is not None and keepdim:
        data = data.reshape(tuple(1 if d in axes else n for d, n in enumerate(xd.shape)))
    return data


def _mean_np(xd: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool) -> Any:
    """`xd.mean(axis=axes, keepdims=keepdim, dtype=xd.dtype)` without numpy's Python layer:
    the same sum divided by the count (numpy divides in float64 and rounds once; dividing
    in the array's float dtype rounds to the same value)."""
    count = xd.size if axes is None else reduced(xd.shape, axes)
    if count == 0 or xd.dtype.kind != "f":
        return xd.mean(axis=axes, keepdims=keepdim, dtype=xd.dtype)  # nan + numpy's warning
    return _add_reduce(xd, axis=axes, dtype=xd.dtype, keepdims=keepdim) / count
