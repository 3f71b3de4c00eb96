"""std, var and norm reductions with torch's nodes: StdBackward0, VarBackward0 and
LinalgVectorNormBackward0 (Tensor.norm / torch.norm / torch.linalg.vector_norm).

Each backward is torch's formula `G(g, x, result)` with g and the result kept at reduced dims;
the jvp is the sum of `tangent * G(1, ...)` over the reduced dims. `G` is written once for
numpy arrays and Tensors, so create_graph=True differentiates the same rule, and zero
denominators are masked where torch masks them (std at 0, norm at 0), nan for nan.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from detachviz.engine.arrays import (
    norm_dims,
)
from detachviz.engine.function import (
    apply,
)
from detachviz.engine.node import RESULT, Saved, node_class, set_jvp
from detachviz.engine.rules import TT
from detachviz.engine.tensor import Tensor, wrap


# --------------------------------------------------------------------------------------------
# helpers on numpy arrays and Tensors alike
# --------------------------------------------------------------------------------------------
def _np(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def _const(v: Any, like: Any) -> Any:
    """A constant (no graph) of like's kind and dtype."""
    arr = np.asarray(v, dtype=_np(like).dtype)
    return wrap(arr) if isinstance(like, Tensor) else arr


def _axes(nd: int, dims: tuple[int, ...] | None) -> tuple[int, ...]:
    return tuple(range(nd)) if dims is None else tuple(sorted({d % nd for d in dims}))


def _kept(v: Any, shape: tuple[int, ...], dims: tuple[int, ...] | None, keepdim: bool) -> Any:
    """A reduced value (or gradient) reshaped to broadcast over the input's shape."""
    if keepdim or not shape:
        return v
    if isinstance(v, Tensor):
        # torch's formulas: a 0-d value broadcasts as it is, else unsqueeze each reduced dim
        # (UnsqueezeBackward0 nodes under create_graph, not a view)
        if not v._data.ndim:
            return v
        for d in _axes(len(shape), dims):
            v = v.unsqueeze(d)
        return v
    ks = tuple(1 if i in _axes(len(shape), dims) else s for i, s in enumerate(shape))
    return v.reshape(ks)


def _rsum(v: Any, dims: tuple[int, ...] | None, keepdim: bool) -> Any:
    nd = _np(v).ndim
    if nd == 0:
        return v
    ax = _axes(nd, dims)
    return v.sum(ax, keepdim=keepdim) if isinstance(v, Tensor) else v.sum(ax, keepdims=keepdim)


def _mean_kept(x: Any, dims: tuple[int, ...] | None) -> Any:
    nd = _np(x).ndim
    if nd == 0:
        return x
    ax = _axes(nd, dims)
    return x.mean(ax, keepdim=True) if isinstance(x, Tensor) else x.mean(ax, keepdims=True)


def _masked(v: Any, mask: Any) -> Any:
    """torch's `v.masked_fill_(mask, 0)`: a double backward through a masked entry gives
    torch's nan (0 * inf) there too."""
    if isinstance(v, Tensor):  # always in the graph, as torch's formula has it
        return v.masked_fill(wrap(np.broadcast_to(mask, v._data.shape).copy()), 0.0)
    if not mask.any():
        return v
    if isinstance(v, Tensor):
        return v.masked_fill(wrap(np.broadcast_to(mask, v._data.shape).copy()), 0.0)
    return np.where(mask, v.dtype.type(0), v)


def _safe_div(num: Any, den: Any) -> Any:
    """num / den, 0 where den == 0."""
    with np.errstate(all="ignore"):
        return _masked(num / den, _np(den) == 0)


def _abs(v: Any) -> Any:
    return v.abs() if isinstance(v, Tensor) else np.abs(v)


def _sgn(v: Any) -> Any:
    """sign(v); on a Tensor kept in the graph with a zero derivative, as torch's sgn is."""
    sign = _const(np.sign(_np(v)), v)
    return v * 0.0 + sign if isinstance(v, Tensor) else sign


def _count(shape: tuple[int, ...], dims: tuple[int, ...] | None) -> int:
    return math.prod(shape[d] for d in _axes(len(shape), dims)) if shape else 1


# --------------------------------------------------------------------------------------------
# backward formulas (torch's, FunctionsManual.cpp): G(g, x, result, dims, extra) is the input
# gradient for g (and result) kept at reduced dims; with g = 1 it is the derivative D
# --------------------------------------------------------------------------------------------
def _dof(shape: tuple[int, ...], dims: Any, correction: Any) -> float:
    c = 1 if correction is None else correction
    return max(0.0, _count(shape, dims) - c)


def _times(v: Any, c: float) -> Any:
    """v * a Python number: torch's mul.Scalar (MulBackward1) on a Tensor."""
    return TT.mul_scalar(v, c) if isinstance(v, Tensor) else c * v


def _var_g(g: Any, x: Any, res: Any, dims: Any, correction: Any) -> Any:
    shape = tuple(_np(x).shape)
    return _times(g, 2.0 / _dof(shape, dims, correction)) * (x - _mean_kept(x, dims))


def _std_g(g: Any, x: Any, res: Any, dims: Any, correction: Any) -> Any:
    return _var_g(_safe_div(g, res * 2.0), x, res, dims, correction)


def _norm_g(g: Any, x: Any, res: Any, dims: Any, p: float) -> Any:
    if p == 0:
        return x * 0.0 * g
    if p == 1:
        return _sgn(x) * g
    if p == 2:
        return g * _safe_div(x, res)
    if math.isinf(p):
        eq = (np.abs(_np(x)) == _np(res)) | (np.isnan(_np(x)) & np.isnan(_np(res)))
        nb = np.sum(eq, axis=_axes(eq.ndim, dims), keepdims=True) if eq.ndim else eq
        return _sgn(x) * _const(eq, x) * (g / _const(nb, x))
    if p < 1:
        powed = _masked(_abs(x) ** (p - 1), _np(x) == 0)
        return _sgn(x) * powed * g * res ** (1 - p)
    scaled = _sgn(x) * _abs(x) ** (p - 1) if p < 2 else x * _abs(x) ** (p - 2)
    return scaled * _safe_div(g, res ** (p - 1))


def _vjp(rule_g: Any, with_result: bool) -> Any:
    """The attrs are (dim, keepdim, extra) and the saved values (self[, result])."""

    def rule(k: Any, g: Any, s: Any, a: Any) -> Any:
        x = s[0]
        dims, keepdim, extra = a
        shape = tuple(_np(x).shape)
        res = _kept(s[1], shape, dims, keepdim) if with_result else None
        with np.errstate(all="ignore"):
            return rule_g(_kept(g, shape, dims, keepdim), x, res, dims, extra)

    return rule


def _jvp(rule_g: Any) -> Any:
    def rule(t: Any, p: Any, out: Any, a: Any) -> Any:
        dims, keepdim, extra = a
        res = _kept(out, p[0].shape, dims, keepdim)
        one = np.ones(res.shape, dtype=out.dtype)
        return _rsum(t * rule_g(one, p[0], res, dims, extra), dims, keepdim)

    return rule


# NOTE: torch's attribute order differs per node; the vjp reads (dim, keepdim, extra)
def _std_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    """torch's std_backward: (grad / (result * 2)).masked_fill_(result == 0, 0) at the
    reduced shape, then var_backward of that."""
    x, res = s[0], s[1]
    dims, keepdim, correction = a
    shape = tuple(_np(x).shape)
    with np.errstate(all="ignore"):
        gv = _safe_div(g, _times(res, 2.0))
        return _var_g(_kept(gv, shape, dims, keepdim), x, None, dims, correction)


STD = node_class(
    "StdBackward0",
    (_std_vjp,),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim", "keepdim", "correction"),
)
set_jvp(STD, (_jvp(_std_g),))
VAR = node_class(
    "VarBackward0",
    (_vjp(_var_g, False),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("dim", "keepdim", "correction"),
)
set_jvp(VAR, (_jvp(_var_g),))
NORM = node_class(
    "LinalgVectorNormBackward0",
    (_vjp(_norm_g, True),),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim", "keepdim", "ord"),
)
set_jvp(NORM, (_jvp(_norm_g),))


# --------------------------------------------------------------------------------------------
# the ops
# --------------------------------------------------------------------------------------------
def _dims(x: Tensor, dim: Any) -> tuple[int, ...] | None:
    if dim is None:
        return None
    return norm_dims(dim, x._data.ndim)


def _np_axes(x: Tensor, dims: tuple[int, ...] | None) -> Any:
    return None if dims is None or x._data.ndim == 0 else _axes(x._data.ndim, dims)


def _var_value(name: str, x: Tensor, dims: Any, correction: Any, keepdim: bool) -> Any:
    if not x._dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    xd = x._data
    c = 1 if correction is None else correction
    if _count(xd.shape, dims) - c <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        v = np.var(xd, axis=_np_axes(x, dims), ddof=c, keepdims=keepdim)
    return np.asarray(v, dtype=xd.dtype)


def _resolve(dim: Any, unbiased: Any, correction: Any) -> tuple[Any, Any]:
    """(dim, correction) from torch's overloads: std(unbiased), std(dim, unbiased, keepdim),
    std(dim, *, correction). The node's correction stays None when nothing set it."""
    if isinstance(dim, bool):  # x.std(False): the `unbiased` overload
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise RuntimeError("Cannot pass both correction and unbiased arguments")
    if correction is None and (unbiased is not None or dim is not None):
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def var(
    x: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """Tensor.var / torch.var: sum((x - mean)^2) / (N - correction), correction 1 by default."""
    dim, correction = _resolve(dim, unbiased, correction)
    dims = _dims(x, dim)
    data = _var_value("var", x, dims, correction, keepdim)
    return apply(VAR, "var", (x,), data, x._dtype, (dims, keepdim, correction))


def std(
    x: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """Tensor.std / torch.std: sqrt of var."""
    dim, correction = _resolve(dim, unbiased, correction)
    dims = _dims(x, dim)
    data = np.sqrt(_var_value("std", x, dims, correction, keepdim))
    return apply(STD, "std", (x,), data, x._dtype, (dims, keepdim, correction))


def _norm_value(xd: Any, p: float, axes: Any, keepdim: bool) -> Any:
    a = np.abs(xd)
    if p == math.inf:
        return np.max(a, axis=axes, keepdims=keepdim) if a.size else np.zeros(())
    if p == -math.inf:
        return np.min(a, axis=axes, keepdims=keepdim)
    if p == 0:
        return np.sum(a != 0, axis=axes, keepdims=keepdim)
    if p == 1:
        return np.sum(a, axis=axes, keepdims=keepdim)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
    return np.sum(a**p, axis=axes, keepdims=keepdim) ** (1.0 / p)


def vector_norm(
    x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """torch.linalg.vector_norm: (sum |x|^ord)^(1/ord) over dim (all dims by default)."""
    if not x._dtype.is_floating_point:
        kind = x._dtype.legacy[: -len("Tensor")]
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {kind}"
        )
    if dtype is not None:
        x = x.to(dtype)
    p = float(ord)
    dims = _dims(x, dim)
    with np.errstate(all="ignore"):
        data = _norm_value(x._data, p, _np_axes(x, dims), keepdim)
    data = np.asarray(data, dtype=x._data.dtype)
    return apply(NORM, "linalg_vector_norm", (x,), data, x._dtype, (dims, keepdim, ord))


def norm(
    x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    """Tensor.norm / torch.norm: vector norms (and "fro" over any dims), as torch 2.x routes
    them through linalg.vector_norm."""
    if p == "nuc":
        raise NotImplementedError("detachviz does not support the nuclear norm")
    if p is None or p == "fro":
        p = 2
    if isinstance(dim, int):
        dim = (dim,)
    return vector_norm(x, p, dim, keepdim, dtype=dtype)
