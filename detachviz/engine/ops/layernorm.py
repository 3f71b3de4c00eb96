"""Layer normalisation as torch's `native_layer_norm`: one fused op over the trailing
`normalized_shape` dims, its node `NativeLayerNormBackward0` with torch's three edges
(input, weight, bias) and saved `input`, `weight`, `bias`, `result1` (mean), `result2` (rstd).

The backward rules recompute mean and rstd from the saved input with the rule kernels, so
create_graph=True differentiates through them (torch's double backward does the same).
NOTE: the node also carries `eps` for its rules (torch keeps it inside the saved rstd), but
shows no `_saved_eps`, as torch's node has none (torchviz's show_attrs lists what it shows).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine.function import apply
from detachviz.engine.node import Saved, named_attrs, node_class
from detachviz.engine.ops.norm import normalization_double_backward
from detachviz.engine.rules import NP, TT, graph_backward, multi_backward_op, needs
from detachviz.engine.tensor import Tensor, wrap


def _sum_keep(k: Any, v: Any, axes: tuple[int, ...]) -> Any:
    if k is NP:
        return np.sum(v, axis=axes, keepdims=True)
    return v.sum(axes, keepdim=True)


def _axes(x: Any, a: Any) -> tuple[int, ...]:
    nd = np.ndim(x)
    return tuple(range(nd - len(a.normalized_shape), nd))


def _stats(k: Any, x: Any, a: Any) -> tuple[Any, Any, int]:
    """(x - mean, rstd, n) over the normalised dims, in the rule's kernels."""
    axes = _axes(k.data(x), a)
    n = 1
    for d in a.normalized_shape:
        n *= d
    xc = x - _sum_keep(k, x, axes) / n
    var = _sum_keep(k, xc * xc, axes) / n
    return xc, (var + a.eps) ** -0.5, n


def _xhat_np(x: Any, a: Any) -> Any:
    """The normalised input from the forward's saved mean and rstd (torch's backward uses
    them too; numpy arrays only)."""
    return (x - a.result1._data) * a.result2._data


def _input_grad_np(g: Any, xhat: Any, w: Any, a: Any) -> Any:
    """d input from numpy arrays, given the normalised input `xhat` (left unchanged)."""
    axes = _axes(xhat, a)
    n = math.prod(a.normalized_shape)
    gx = g if w is None else g * w
    add = np.add.reduce
    mean_g = add(gx, axis=axes, keepdims=True) / n
    mean_gx = add(gx * xhat, axis=axes, keepdims=True) / n
    gx = gx - mean_g
    gx -= xhat * mean_gx
    gx *= a.result2._data
    return gx


def _input_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, w = s[0], s[1]
    if k is NP:
        return _input_grad_np(g, _xhat_np(x, a), w, a)
    axes = _axes(k.data(x), a)
    xc, rstd, n = _stats(k, x, a)
    xhat = xc * rstd
    gx = g if w is None else g * w
    mean_g = _sum_keep(k, gx, axes) / n
    mean_gx = _sum_keep(k, gx * xhat, axes) / n
    return rstd * (gx - mean_g - xhat * mean_gx)


def _weight_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    if k is NP:
        return g * _xhat_np(s[0], a)
    xc, rstd, _ = _stats(k, s[0], a)
    return g * (xc * rstd)  # the engine sums it down to the weight's shape


def _jvp_input(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, w = p[0], p[1]
    axes = _axes(x, a)
    n = int(np.prod(a.normalized_shape))
    xc = x - np.sum(x, axis=axes, keepdims=True) / n
    rstd = (np.sum(xc * xc, axis=axes, keepdims=True) / n + a.eps) ** -0.5
    xhat = xc * rstd
    tc = t - np.sum(t, axis=axes, keepdims=True) / n
    dxhat = rstd * (tc - xhat * np.sum(tc * xhat, axis=axes, keepdims=True) / n)
    return dxhat if w is None else dxhat * w


def _jvp_weight(t: Any, p: Any, out: Any, a: Any) -> Any:
    x = p[0]
    axes = _axes(x, a)
    n = int(np.prod(a.normalized_shape))
    xc = x - np.sum(x, axis=axes, keepdims=True) / n
    return xc * (np.sum(xc * xc, axis=axes, keepdims=True) / n + a.eps) ** -0.5 * t


NATIVE_LAYER_NORM = node_class(
    "NativeLayerNormBackward0",
    (_input_vjp, _weight_vjp, lambda k, g, s, a: g),
    saved=(Saved("input", 0, (0, 1)), Saved("weight", 1, (0,)), Saved("bias", 2, (0,))),
    attrs=("normalized_shape", "result1", "result2", "eps"),
    jvp=(_jvp_input, _jvp_weight, lambda t, p, o, a: t),
)
delattr(NATIVE_LAYER_NORM, "_saved_eps")  # the rules read `a.eps`; torch's node has no attribute


def _shape_str(shape: Any) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _check(x: Tensor, normalized_shape: tuple[int, ...], param: Any, what: str) -> None:
    if param is not None and tuple(param._data.shape) != normalized_shape:
        raise RuntimeError(
            f"Expected {what} to be of same shape as normalized_shape, but got {what} of shape "
            f"{_shape_str(param._data.shape)} and normalized_shape = "
            f"{_shape_str(normalized_shape)}"
        )


def native_layer_norm(
    input: Tensor, normalized_shape: Any, weight: Any, bias: Any, eps: float
) -> tuple[Tensor, Tensor, Tensor]:
    """(output, mean, rstd), as torch.native_layer_norm; mean and rstd keep the normalised
    dims as size 1. The output is computed as torch's CPU kernel does it:
    (x * rstd + (-rstd * mean)) * weight + bias, in the input's dtype."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    xd = input._data
    k = len(shape)
    if k == 0 or xd.ndim < k or tuple(xd.shape[xd.ndim - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={_shape_str(shape)}, expected input with shape "
            f"[*, {', '.join(str(d) for d in shape)}], but got input of size"
            f"{_shape_str(xd.shape)}"
        )
    _check(input, shape, weight, "weight")
    _check(input, shape, bias, "bias")
    axes = tuple(range(xd.ndim - k, xd.ndim))
    # NOTE: the moments in float64, then rounded once to the input's dtype
    # (np.add.reduce / n is np.mean's own arithmetic, without its Python layer)
    n = math.prod(shape)
    # (x - mean and its square in place, in the float64 copy: one large temporary)
    d64 = xd.astype(np.float64)
    mean64 = np.add.reduce(d64, axis=axes, keepdims=True) / n
    d64 -= mean64
    var64 = np.add.reduce(np.multiply(d64, d64, out=d64), axis=axes, keepdims=True) / n
    del d64
    rstd = (1.0 / np.sqrt(np.maximum(var64, 0.0) + eps)).astype(xd.dtype)
    mean = mean64.astype(xd.dtype)
    out = xd * rstd
    out += -rstd * mean
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    dt = input._dtype
    mean_t, rstd_t = wrap(mean, dt), wrap(rstd, dt)
    y = apply(
        NATIVE_LAYER_NORM,
        "native_layer_norm",
        (input, weight, bias),
        out.astype(xd.dtype, copy=False),
        dt,
        (shape, mean_t, rstd_t, eps),
    )
    return y, mean_t, rstd_t


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    """torch.layer_norm: the first output of native_layer_norm."""
    return native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


# --------------------------------------------------------------------------------------------
# create_graph: torch's native_layer_norm_backward as one op (NativeLayerNormBackwardBackward0)
# --------------------------------------------------------------------------------------------
def _ln_backward(k: Any, g: Any, x: Any, mean: Any, rstd: Any, w: Any, b: Any, a: Any,
                 mask: Any) -> list[Any]:  # fmt: skip
    """native_layer_norm_backward on arrays: the input, weight and bias gradients."""
    fa = tuple.__new__(NATIVE_LAYER_NORM._Attrs, (a.normalized_shape, wrap(mean), wrap(rstd), 0.0))
    lead = tuple(range(np.ndim(g) - len(a.normalized_shape)))
    return [
        _input_vjp(k, g, (x, w), fa) if mask[0] else None,
        np.add.reduce(_weight_vjp(k, g, (x,), fa), axis=lead) if mask[1] else None,
        np.add.reduce(g, axis=lead) if mask[2] else None,
    ]


def _ln_double_backward(k: Any, ggs: Any, g: Any, x: Any, mean: Any, rstd: Any, w: Any,
                        a: Any) -> list[Any]:  # fmt: skip
    nd, nn = len(g.shape), len(a.normalized_shape)
    stat = tuple(range(nd - nn, nd))
    d_g, d_x, d_w = normalization_double_backward(
        ggs, g, (x - mean) * rstd, rstd, w, tuple(a.normalized_shape), stat, tuple(range(nd - nn))
    )
    return [d_g, d_x, None, None, d_w, None]


LN_BACK = multi_backward_op(
    "NativeLayerNormBackwardBackward0",
    _ln_backward,
    _ln_double_backward,
    3,
    attrs=("normalized_shape",),
    saved=("grad_out", "input", "mean", "rstd", "weight"),
    edges=6,
    hess=(1, 4, None),
)


def _ln_graph_backward(node: Any, g: Tensor) -> list[Any]:
    x, w, b = node._unpack(True)
    a = named_attrs(node)
    ins = (x, a.result1, a.result2, w, b)
    return LN_BACK(TT, g, ins, (a.normalized_shape,), needs(node))


def _ln_plain_backward(node: Any, g: Any) -> list[Any]:
    """The three vjps on arrays with the normalised input computed once for the input's and
    the weight's gradient (the weight's and bias's are summed down by the engine, as the
    vjps' are)."""
    x, w, _ = node._unpack(False)
    a = named_attrs(node)
    mask = needs(node)
    xhat = _xhat_np(x, a) if mask[0] or mask[1] else None
    return [
        _input_grad_np(g, xhat, w, a) if mask[0] else None,
        g * xhat if mask[1] else None,
        g if mask[2] else None,
    ]


graph_backward(NATIVE_LAYER_NORM, _ln_graph_backward, _ln_plain_backward)
