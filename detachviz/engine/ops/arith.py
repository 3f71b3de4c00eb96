"""Arithmetic: add, sub, mul, div, pow, neg, reciprocal (and the reflected operators), with
their backward rows and JVP rules; the unrolled `fast_binary` forms the Tensor operators use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import (
    apply,
    binary,
    fast_binary,
    float_unary,
    operator_form,
    scalar_op,
    unary,
)
from detachviz.engine.node import RESULT, Saved, node_class, set_jvp
from detachviz.engine.promote import PY_SCALARS, as_scalar
from detachviz.engine.rules import install_kernels
from detachviz.engine.tensor import Tensor

_ndarray = np.ndarray
_new = object.__new__


def alpha_scaled(g: Any, alpha: Any, k: Any = None) -> Any:
    """g * alpha, as torch's maybe_multiply: a number product (MulBackward1) under create_graph
    (`k` the rule's kernels; None in forward AD, on arrays)."""
    if alpha == 1:
        return g
    return g * alpha if k is None else k.mul_scalar(g, alpha)


ADD = node_class(
    "AddBackward0",
    (lambda k, g, s, a: g, lambda k, g, s, a: alpha_scaled(g, a.alpha, k)),
    attrs=("alpha",),
)
SUB = node_class(
    "SubBackward0",
    (lambda k, g, s, a: g, lambda k, g, s, a: alpha_scaled(-g, a.alpha, k)),
    attrs=("alpha",),
)
RSUB = node_class(
    "RsubBackward1", (lambda k, g, s, a: alpha_scaled(-g, a.alpha, k),), attrs=("alpha",)
)
# alpha=1, the attributes of nearly every add/sub: built once, already named (`a.alpha`)
ALPHA_1 = ADD._Attrs(1)
MUL = node_class(
    "MulBackward0",
    (lambda k, g, s, a: g * s[0], lambda k, g, s, a: g * s[1]),
    saved=(Saved("other", 1, (0,)), Saved("self", 0, (1,))),
)
DIV = node_class(
    "DivBackward0",
    (lambda k, g, s, a: g / s[0], lambda k, g, s, a: -g * ((s[1] / s[0]) / s[0])),
    saved=(Saved("other", 1, (0, 1)), Saved("self", 0, (1,))),
)
NEG = node_class("NegBackward0", (lambda k, g, s, a: -g,))
RECIPROCAL = node_class(
    "ReciprocalBackward0",
    (lambda k, g, s, a: -g * (s[0] * s[0]),),
    saved=(Saved("result", RESULT, (0,)),),
)


def _pow0(k: Any, g: Any, s: Any, a: Any) -> Any:
    e = a.exponent
    if e == 0:
        return k.zeros_like(s[0])
    x = s[0]
    # pow_backward: grad * (exponent * self.pow(exponent - 1)), the product by a number mul.Scalar
    return g * k.mul_scalar(pow_np(x, e - 1) if isinstance(x, np.ndarray) else x ** (e - 1), e)


def _pow1_self(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, e = s[0], s[1]
    return k.where0(k.data(e) != 0, g * (e * x ** (e - 1)))


def _pow_exponent(k: Any, g: Any, base: Any, e: Any, result: Any) -> Any:
    # NOTE: torch defines d/de base**e as 0 where base == 0 and e >= 0 (not nan)
    if isinstance(base, PY_SCALARS):
        cond = (base == 0) & (k.data(e) >= 0)
        logb = math.log(base) if base > 0 else (float("-inf") if base == 0 else float("nan"))
        return g * k.where0(~cond, result * logb)
    cond = (k.data(base) == 0) & (k.data(e) >= 0)
    return g * k.where0(~cond, result * k.log(base))


POW0 = node_class("PowBackward0", (_pow0,), saved=(Saved("self", 0, (0,)),), attrs=("exponent",))
POW1 = node_class(
    "PowBackward1",
    (_pow1_self, lambda k, g, s, a: _pow_exponent(k, g, s[0], s[1], s[2])),
    saved=(Saved("self", 0, (0, 1)), Saved("exponent", 1, (0, 1)), Saved("result", RESULT, (0, 1))),
)
POW2 = node_class(
    "PowBackward2",
    (lambda k, g, s, a: _pow_exponent(k, g, a.self, s[0], s[1]),),
    saved=(Saved("exponent", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("self",),
)


def _pow0_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    e = a.exponent
    return t * 0 if e == 0 else t * (e * p[0] ** (e - 1))


def _pow_base_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, e = p[0], p[1]
    return np.where(e != 0, t * (e * x ** (e - 1)), 0)


def _pow_exponent_jvp(t: Any, base: Any, e: Any, out: Any) -> Any:
    # NOTE: as in the vjp, d/de base**e is taken as 0 where base == 0 and e >= 0 (not nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        logb = np.log(base)
    return np.where((np.asarray(base) == 0) & (np.asarray(e) >= 0), 0, t * out * logb)


def _identity(t: Any, p: Any, out: Any, a: Any) -> Any:
    return t


set_jvp(ADD, (_identity, lambda t, p, o, a: alpha_scaled(t, a.alpha)))
set_jvp(SUB, (_identity, lambda t, p, o, a: -alpha_scaled(t, a.alpha)))
set_jvp(RSUB, (lambda t, p, o, a: -alpha_scaled(t, a.alpha),))
set_jvp(MUL, (lambda t, p, o, a: t * p[1], lambda t, p, o, a: p[0] * t))
set_jvp(DIV, (lambda t, p, o, a: t / p[1], lambda t, p, o, a: -t * o / p[1]))
set_jvp(NEG, (lambda t, p, o, a: -t,))
set_jvp(RECIPROCAL, (lambda t, p, o, a: -t * o * o,))
set_jvp(POW0, (_pow0_jvp,))
set_jvp(POW1, (_pow_base_jvp, lambda t, p, o, a: _pow_exponent_jvp(t, p[0], p[1], o)))
set_jvp(POW2, (lambda t, p, o, a: _pow_exponent_jvp(t, a.self, p[0], o),))


def add(x: Tensor, y: Any, *, alpha: Any = 1) -> Tensor:
    if alpha != 1:
        return binary(ADD, lambda a, b: a + b * alpha, "add", x, y, (alpha,))
    return binary(ADD, np.add, "add", x, y, ALPHA_1)


def sub(x: Tensor, y: Any, *, alpha: Any = 1) -> Tensor:
    if alpha != 1:
        return binary(SUB, lambda a, b: a - b * alpha, "sub", x, y, (alpha,))
    return binary(SUB, np.subtract, "sub", x, y, ALPHA_1)


def radd(x: Tensor, y: Any) -> Tensor:
    return binary(ADD, flip(np.add), "add", x, y, ALPHA_1)


def flip(fn: Any) -> Any:
    return lambda a, b: fn(b, a)


_rsub_fn = flip(np.subtract)


def rsub(x: Tensor, y: Any) -> Tensor:
    if isinstance(y, Tensor):
        return sub(y, x)
    return scalar_op(RSUB, _rsub_fn, "rsub", x, as_scalar(y), ALPHA_1)


def mul(x: Tensor, y: Any) -> Tensor:
    return binary(MUL, np.multiply, "mul", x, y)


mul_fast = fast_binary(MUL, np.multiply, "mul")
add_fast = fast_binary(ADD, np.add, "add", ALPHA_1)
sub_fast = fast_binary(SUB, np.subtract, "sub", ALPHA_1)
_div_fast_any = fast_binary(DIV, np.true_divide, "div")


def div_fast(x: Any, y: Any) -> Tensor:
    # NOTE: integer true division promotes to float32: leave that to the general path
    if x.__class__ is Tensor and x._dtype.is_floating_point:
        return _div_fast_any(x, y)
    return _div_operator(x, y)  # type: ignore[no-any-return]


def rmul(x: Tensor, y: Any) -> Tensor:
    return binary(MUL, flip(np.multiply), "mul", x, y)


def div(x: Tensor, y: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        fn = np.floor_divide if rounding_mode == "floor" else _trunc_div
        return binary(None, fn, "div", x, y)
    return binary(DIV, np.true_divide, "div", x, y, floating=True)


def _trunc_div(a: Any, b: Any) -> Any:
    return np.trunc(np.true_divide(a, b)).astype(np.result_type(a, b))


_div_operator = operator_form(div)


def rdiv(x: Tensor, y: Any) -> Tensor:
    if isinstance(y, Tensor):
        return div(y, x)
    # NOTE: torch computes `2 / x` as reciprocal(x) * 2 (MulBackward0 over ReciprocalBackward0),
    # with the `*` operator, so `ndarray / x` multiplies in numpy (`Tensor.__array_wrap__`)
    return reciprocal(x) * y  # type: ignore[no-any-return]


def reciprocal(x: Tensor) -> Tensor:
    return float_unary(RECIPROCAL, np.reciprocal, "reciprocal", x)


def pow_np(a: Any, e: Any) -> Any:
    """a ** e with torch's special cases for float tensors, so values match it bit for bit:
    x*x*x for 3, 1/(x*x) for -2, 1/sqrt(x) for -0.5 (numpy's ** covers 2, -1, 1, 0)."""
    if e == 3:
        return a * a * a
    if e == -2:
        return 1 / (a * a)
    if e == -0.5:
        return 1 / np.sqrt(a)
    return a**e


def pow(x: Tensor, e: Any) -> Tensor:  # noqa: A001 - torch's name
    if isinstance(e, Tensor):
        return binary(POW1, np.power, "pow", x, e)
    e = as_scalar(e)
    if x._dtype.is_floating_point and e.__class__ in (float, int):
        return apply(POW0, "pow", (x,), pow_np(x._data, e), x._dtype, (e,))
    if isinstance(e, int) and not x._dtype.is_floating_point and e < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return scalar_op(POW0, np.power, "pow", x, e, (e,))


def rpow(x: Tensor, base: Any) -> Tensor:
    if isinstance(base, Tensor):
        return pow(base, x)
    base = as_scalar(base)
    return scalar_op(POW2, flip(np.power), "pow", x, base, (base,))


def neg(x: Tensor) -> Tensor:
    if x._dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return unary(NEG, np.negative, "neg", x)


# NOTE: ATen's composites add Python numbers through add.Scalar, whose node is AddBackward1
# with a single edge (a Python `x + 0.5` is add.Tensor: AddBackward0 with a None edge)
ADD_SCALAR = node_class("AddBackward1", (lambda k, g, s, a: g,))
set_jvp(ADD_SCALAR, (lambda t, p, o, a: t,))


def add_scalar(x: Tensor, other: float) -> Tensor:
    """at::add(x, other) with a number `other` (AddBackward1)."""
    data = np.asarray(x._data + x._data.dtype.type(other), dtype=x._data.dtype)
    return apply(ADD_SCALAR, "add", (x,), data, x._dtype)


# NOTE: ATen's composites divide by a number through div.Scalar: DivBackward1 saving `other`
DIV_SCALAR = node_class(
    "DivBackward1", (lambda k, g, s, a: k.div_scalar(g, a.other),), attrs=("other",)
)
set_jvp(DIV_SCALAR, (lambda t, p, o, a: t / a.other,))


def div_scalar(x: Tensor, other: float) -> Tensor:
    """at::div(x, other) with a number `other` (DivBackward1)."""
    with np.errstate(all="ignore"):
        data = np.asarray(x._data / x._data.dtype.type(other), dtype=x._data.dtype)
    return apply(DIV_SCALAR, "div", (x,), data, x._dtype, (other,))


# NOTE: and multiply by a number through mul.Scalar: MulBackward1 saving `other`
MUL_SCALAR = node_class(
    "MulBackward1", (lambda k, g, s, a: k.mul_scalar(g, a.other),), attrs=("other",)
)
set_jvp(MUL_SCALAR, (lambda t, p, o, a: t * a.other,))


def mul_scalar(x: Tensor, other: float) -> Tensor:
    """at::mul(x, other) with a number `other` (MulBackward1)."""
    data = np.asarray(x._data * x._data.dtype.type(other), dtype=x._data.dtype)
    return apply(MUL_SCALAR, "mul", (x,), data, x._dtype, (other,))


install_kernels(mul_scalar=mul_scalar, div_scalar=div_scalar, add_scalar=add_scalar)
