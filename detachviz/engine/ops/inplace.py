"""In-place ops: add_, sub_, mul_, div_, pow_, zero_, fill_, clamp_, copy_, the unary ones
(exp_, relu_, ...) and resize_; and CopySlices' backward (an in-place op on a view).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import errors, transcendental
from detachviz.engine.arrays import (
    broadcast,
    region,
)
from detachviz.engine.function import (
    inplace,
)
from detachviz.engine.node import CopySlices, Node, node_class, set_jvp
from detachviz.engine.ops import unary as _u
from detachviz.engine.ops.arith import ADD, ALPHA_1, DIV, MUL, NEG, POW0, POW1, RECIPROCAL, SUB
from detachviz.engine.ops.unary import (
    ABS,
    CLAMP,
    COS,
    EXP,
    LOG,
    RELU,
    SIGMOID,
    SIN,
    SQRT,
    TANH,
    relu_np,
    rsqrt_np,
    sigmoid_np,
)
from detachviz.engine.promote import as_scalar
from detachviz.engine.rules import TT, as_strided, call_rule
from detachviz.engine.tensor import Tensor, wrap

COPY = node_class(
    "torch::autograd::CopyBackwards",
    (lambda k, g, s, a: k.zeros_like(g), lambda k, g, s, a: g),
    cls_name="CopyBackwards",
)


def _identity(t: Any, p: Any, out: Any, a: Any) -> Any:
    return t


set_jvp(COPY, (None, _identity))


def _copy_slices_backward(node: CopySlices, g: Any, tensor_mode: bool) -> list[Any]:
    """Base gradient = g with the view's window replaced by the in-place op's gradient for
    its self; the op's other inputs get theirs from the window of g."""
    if node._saved is None:
        raise RuntimeError(errors.BACKWARD_TWICE)
    size, stride, offset, base_shape = node._view_args
    fn = node._fn
    if tensor_mode:
        gt = g.expand(*base_shape).contiguous() if g._data.shape != base_shape else g
        gslice = as_strided(gt, size, stride, offset)
        grads = call_rule(fn, gslice, True)
        keep = np.ones(base_shape, dtype=gt._data.dtype)
        region(keep, size, stride, offset)[...] = 0
        result = gt * wrap(keep)
        if grads[0] is not None:
            result = result + TT.as_strided_backward(
                grads[0].expand(*size), base_shape, size, stride, offset
            )
        return [result, *grads[1:]]
    result = np.array(np.broadcast_to(g, base_shape), copy=True)
    window = region(result, size, stride, offset)
    grads = call_rule(fn, window.copy(), False)
    window[...] = 0 if grads[0] is None else np.broadcast_to(grads[0], size)
    return [result, *grads[1:]]


CopySlices._custom = staticmethod(_copy_slices_backward)


def _inplace_binary(cls: type[Node] | None, fn: Any, name: str, floating: bool = False) -> Any:
    def op(x: Tensor, y: Any, **kw: Any) -> Tensor:
        alpha = kw.get("alpha", 1)
        if isinstance(y, Tensor):
            yd = y._data
        else:
            yd = as_scalar(y)
        if alpha != 1:
            return inplace(x, name, cls, lambda a: fn(a, yd * alpha), (y,), (alpha,))
        attrs = ALPHA_1 if cls in (ADD, SUB) else ()
        return inplace(x, name, cls, lambda a: fn(a, yd), (y,), attrs)

    op.__name__ = name
    return op


add_ = _inplace_binary(ADD, np.add, "add_")
sub_ = _inplace_binary(SUB, np.subtract, "sub_")
mul_ = _inplace_binary(MUL, np.multiply, "mul_")
div_ = _inplace_binary(DIV, np.true_divide, "div_")


def pow_(x: Tensor, e: Any) -> Tensor:
    if isinstance(e, Tensor):
        return inplace(x, "pow_", POW1, lambda a: np.power(a, e._data), (e,))
    return inplace(x, "pow_", POW0, lambda a: np.power(a, e), (), (e,))


ZERO = node_class("ZeroBackward0", (lambda k, g, s, a: k.zeros_like(g),))
FILL = node_class("FillBackward2", (lambda k, g, s, a: k.zeros_like(g),))
FILL3 = node_class(
    "FillBackward3",
    (lambda k, g, s, a: k.zeros_like(g), lambda k, g, s, a: k.reshape(k.sum_to(g, ()), ())),
)


set_jvp(ZERO, (None,))
set_jvp(FILL, (None,))
set_jvp(FILL3, (None, _identity))


def zero_(x: Tensor) -> Tensor:
    return inplace(x, "zero_", ZERO, lambda a: np.zeros_like(a))


def fill_(x: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return inplace(x, "fill_", FILL3, lambda a: np.full_like(a, value._data), (value,))
    return inplace(x, "fill_", FILL, lambda a: np.full_like(a, value))


def clamp_(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return inplace(x, "clamp_", CLAMP, lambda a: np.clip(a, min, max), (), (min, max))


def _unary_inplace(cls: type[Node], fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return inplace(x, name, cls, fn)

    op.__name__ = name
    return op


exp_ = _unary_inplace(EXP, transcendental.exp, "exp_")
log_ = _unary_inplace(LOG, transcendental.log, "log_")
sqrt_ = _unary_inplace(SQRT, transcendental.sqrt, "sqrt_")
neg_ = _unary_inplace(NEG, np.negative, "neg_")
tanh_ = _unary_inplace(TANH, transcendental.tanh, "tanh_")
sigmoid_ = _unary_inplace(SIGMOID, sigmoid_np, "sigmoid_")
relu_ = _unary_inplace(RELU, relu_np, "relu_")
abs_ = _unary_inplace(ABS, np.abs, "abs_")
sin_ = _unary_inplace(SIN, transcendental.sin, "sin_")
cos_ = _unary_inplace(COS, transcendental.cos, "cos_")
reciprocal_ = _unary_inplace(RECIPROCAL, np.reciprocal, "reciprocal_")
tan_ = _unary_inplace(_u.TAN, np.tan, "tan_")
asin_ = _unary_inplace(_u.ASIN, np.arcsin, "asin_")
acos_ = _unary_inplace(_u.ACOS, np.arccos, "acos_")
atan_ = _unary_inplace(_u.ATAN, np.arctan, "atan_")
sinh_ = _unary_inplace(_u.SINH, np.sinh, "sinh_")
cosh_ = _unary_inplace(_u.COSH, np.cosh, "cosh_")
log1p_ = _unary_inplace(_u.LOG1P, np.log1p, "log1p_")
expm1_ = _unary_inplace(_u.EXPM1, np.expm1, "expm1_")
log2_ = _unary_inplace(_u.LOG2, np.log2, "log2_")
log10_ = _unary_inplace(_u.LOG10, np.log10, "log10_")
exp2_ = _unary_inplace(_u.EXP2, np.exp2, "exp2_")
rsqrt_ = _unary_inplace(_u.RSQRT, rsqrt_np, "rsqrt_")


def copy_(x: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    sd = src._data

    def values(a: np.ndarray) -> np.ndarray:
        # NOTE: the common same-shape copy writes src's array straight in (np.copyto copes
        # with overlap); other shapes broadcast, as torch's copy_ does
        if sd.shape == a.shape:
            return sd if sd.dtype == a.dtype else sd.astype(a.dtype)
        return broadcast(sd, a.shape).astype(a.dtype)

    return inplace(x, "copy_", COPY, values, (src,))


def resize_(x: Tensor, *sizes: Any) -> Tensor:
    if x._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if x._fw_tangent is not None:
        raise RuntimeError("cannot resize variables that has a forward grad")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    n = 1
    for d in sizes:
        n *= d
    flat = x._data.reshape(-1)
    if n <= flat.size:
        x._data = flat[:n].reshape(sizes)
    else:
        # NOTE: growing allocates new storage (torch leaves the new tail uninitialised: zeros)
        new = np.zeros(n, dtype=x._data.dtype)
        new[: flat.size] = flat
        x._storage = new
        x._data = new.reshape(sizes)
    x._bump()
    return x
