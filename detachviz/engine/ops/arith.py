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


# --------------------------------------------------------------------------------------------
# mathops: atan2, hypot, logaddexp(2), copysign, xlogy, ldexp, fmax/fmin, nextafter,
# remainder/fmod (differentiable, as torch's), float_power; derivatives.yaml's formulas.
# torch takes these with a Tensor `other` only (a number is a TypeError), except where noted.

from detachviz.engine.rules import NP as _NP  # noqa: E402


def _tensor_arg(name: str, arg: str, pos: int, v: Any) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
        )


def _float_only(name: str, *ts: Tensor) -> None:
    for t in ts:
        if not t._dtype.is_floating_point:
            kind = t._dtype.legacy.removesuffix("Tensor")
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{kind}'")


def _quiet(fn: Any) -> Any:
    def run(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args)

    return run


def _masked_zero(k: Any, mask: Any, g: Any) -> Any:
    """g with 0 where `mask`: torch's `masked_fill(mask, 0)` (MaskedFillBackward0)."""
    if k is _NP:
        return np.where(mask, np.zeros((), g.dtype), g)
    return g.masked_fill(k.const(mask), 0)


def _atan2_grads(k: Any, g: Any, s: Any, a: Any, which: int) -> Any:
    # atan2_backward: recip = (self^2 + other^2).reciprocal(), 0 where that is inf
    x, y = s[0], s[1]
    with np.errstate(all="ignore"):
        recip = 1 / (x * x + y * y) if k is _NP else (x * x + y * y).reciprocal()
    recip = _masked_zero(k, np.isinf(k.data(recip)), recip)
    return g * y * recip if which == 0 else g * -x * recip


ATAN2 = node_class(
    "Atan2Backward0",
    (
        lambda k, g, s, a: _atan2_grads(k, g, s, a, 0),
        lambda k, g, s, a: _atan2_grads(k, g, s, a, 1),
    ),
    saved=(Saved("self", 0, (0, 1)), Saved("other", 1, (0, 1))),
    jvp=(
        lambda t, p, o, a: t * p[1] / (p[0] * p[0] + p[1] * p[1]),
        lambda t, p, o, a: t * -p[0] / (p[0] * p[0] + p[1] * p[1]),
    ),
)
HYPOT = node_class(
    "HypotBackward0",
    (lambda k, g, s, a: g * s[0] / s[2], lambda k, g, s, a: g * s[1] / s[2]),
    saved=(Saved("self", 0, (0,)), Saved("other", 1, (1,)), Saved("result", RESULT, (0, 1))),
    jvp=(lambda t, p, o, a: t * p[0] / o, lambda t, p, o, a: t * p[1] / o),
)


def _exp(k: Any, x: Any) -> Any:
    return np.exp(x) if k is _NP else x.exp()


def _exp2(k: Any, x: Any) -> Any:
    return np.exp2(x) if k is _NP else 2**x


def _logaddexp_node(name: str, exp_k: Any, exp_np: Any) -> Any:
    """logaddexp's node (base e) or logaddexp2's (base 2): each input's gradient is
    g / (1 + base ** (other - self)), torch's formula; `exp_k` is base ** x for a kernel
    set (numpy or tensors), `exp_np` the numpy function of the JVPs."""
    return node_class(
        name,
        (
            lambda k, g, s, a: g / k.add_scalar(exp_k(k, s[1] - s[0]), 1),
            lambda k, g, s, a: g / k.add_scalar(exp_k(k, s[0] - s[1]), 1),
        ),
        saved=(Saved("self", 0, (0, 1)), Saved("other", 1, (0, 1))),
        jvp=(
            lambda t, p, o, a: t / (exp_np(p[1] - p[0]) + 1),
            lambda t, p, o, a: t / (exp_np(p[0] - p[1]) + 1),
        ),
    )


LOGADDEXP = _logaddexp_node("LogaddexpBackward0", _exp, np.exp)
LOGADDEXP2 = _logaddexp_node("Logaddexp2Backward0", _exp2, np.exp2)


def _copysign_self(k: Any, g: Any, x: Any, y: Any) -> Any:
    # copysign_tensor_self_backward: grad * (result / self).masked_fill_(self == 0, 0)
    with np.errstate(all="ignore"):
        return g * _masked_zero(k, k.data(x) == 0, y / x)


COPYSIGN = node_class(
    "CopysignBackward0",
    (lambda k, g, s, a: _copysign_self(k, g, s[0], s[1]), lambda k, g, s, a: k.zeros_like(g)),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    jvp=(
        lambda t, p, o, a: t * np.where(p[0] == 0, 0, o / np.where(p[0] == 0, 1, p[0])),
        lambda t, p, o, a: np.zeros_like(o),
    ),
)
COPYSIGN_SCALAR = node_class(
    "CopysignBackward1",
    (lambda k, g, s, a: _copysign_self(k, g, s[0], s[1]),),
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    jvp=(lambda t, p, o, a: t * np.where(p[0] == 0, 0, o / np.where(p[0] == 0, 1, p[0])),),
)


def _log_rounded(y: Any) -> Any:
    """log(y); float32 as glibc's logf (torch's scalar kernel): in float64, rounded once."""
    y = np.asarray(y)
    if y.dtype == np.float32:
        return np.log(y.astype(np.float64)).astype(np.float32)
    return np.log(y)


def _xlogy_np(x: Any, y: Any) -> Any:
    with np.errstate(all="ignore"):
        out = np.where(x == 0, np.zeros((), np.result_type(x, y)), x * _log_rounded(y))
        return np.where(np.isnan(y), y, out)


def _xlogy_self(k: Any, g: Any, x: Any, y: Any) -> Any:
    # at::xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)
    yd = y if isinstance(y, PY_SCALARS) else k.data(y)
    mask = (k.data(x) == 0) & (np.asarray(yd) <= 0)
    if k is _NP:
        return _masked_zero(k, mask, _xlogy_np(g, np.asarray(yd, g.dtype)))
    return _masked_zero(k, mask, xlogy(g, y))


XLOGY = node_class(
    "XlogyBackward0",
    (lambda k, g, s, a: _xlogy_self(k, g, s[0], s[1]), lambda k, g, s, a: g * s[0] / s[1]),
    saved=(Saved("self", 0, (0, 1)), Saved("other", 1, (0, 1))),
    jvp=(
        lambda t, p, o, a: _xlogy_self(_NP, t, p[0], p[1]),
        lambda t, p, o, a: t * p[0] / p[1],
    ),
)
XLOGY_SELF = node_class(
    "XlogyBackward1",
    (lambda k, g, s, a: g * a.self / s[0],),
    saved=(Saved("other", 0, (0,)),),
    attrs=("self",),
    jvp=(lambda t, p, o, a: t * a.self / p[0],),
)
XLOGY_OTHER = node_class(
    "XlogyBackward2",
    (lambda k, g, s, a: _xlogy_self(k, g, s[0], a.other),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("other",),
    jvp=(lambda t, p, o, a: _xlogy_self(_NP, t, p[0], a.other),),
)
_LN2_ = math.log(2.0)
LDEXP = node_class(
    "LdexpBackward0",
    (lambda k, g, s, a: g * _exp2(k, s[0]), lambda k, g, s, a: g * k.mul_scalar(s[1], _LN2_)),
    saved=(Saved("other", 1, (0,)), Saved("result", RESULT, (1,))),
    jvp=(lambda t, p, o, a: t * np.exp2(p[1]), lambda t, p, o, a: t * o * _LN2_),
)


def _fmax_mask(k: Any, x: Any, y: Any, lesser: bool) -> Any:
    xd, yd = k.data(x), k.data(y)
    return ((xd <= yd) if lesser else (xd >= yd)) | np.isnan(yd)


def _fmax_node(name: str, lesser: bool) -> Any:
    """fmax's (lesser=False) or fmin's node: the gradient goes to the input that was picked
    (self where it wins or ties, or where other is nan), zero to the other."""
    return node_class(
        name,
        (
            lambda k, g, s, a: _masked_zero(k, ~_fmax_mask(k, s[0], s[1], lesser), g),
            lambda k, g, s, a: _masked_zero(k, _fmax_mask(k, s[0], s[1], lesser), g),
        ),
        saved=(Saved("self", 0, (0, 1)), Saved("other", 1, (0, 1))),
        jvp=(
            lambda t, p, o, a: np.where(_fmax_mask(_NP, p[0], p[1], lesser), t, 0),
            lambda t, p, o, a: np.where(_fmax_mask(_NP, p[0], p[1], lesser), 0, t),
        ),
    )


FMAX = _fmax_node("FmaxBackward0", False)
FMIN = _fmax_node("FminBackward0", True)
NEXTAFTER = node_class(
    "NextafterBackward0",
    (lambda k, g, s, a: g, lambda k, g, s, a: k.zeros_like(g)),
    saved=(Saved("self", 0, (0, 1)), Saved("other", 1, (0, 1))),  # torch's, unused
    jvp=(_identity, lambda t, p, o, a: np.zeros_like(o)),
)


def _rounded_div(mode: str) -> Any:
    def rule(k: Any, g: Any, s: Any, a: Any) -> Any:
        if k is _NP:
            with np.errstate(all="ignore"):
                q = np.floor_divide(s[0], s[1]) if mode == "floor" else np.trunc(s[0] / s[1])
            return -g * q.astype(g.dtype, copy=False)
        return -g * s[0].div(s[1], rounding_mode=mode)

    return rule


def _rounded_div_jvp(mode: str) -> Any:
    def rule(t: Any, p: Any, o: Any, a: Any) -> Any:
        with np.errstate(all="ignore"):
            q = np.floor_divide(p[0], p[1]) if mode == "floor" else np.trunc(p[0] / p[1])
        return -t * q

    return rule


REMAINDER = node_class("RemainderBackward0", (lambda k, g, s, a: g,), jvp=(_identity,))
REMAINDER_T = node_class(
    "RemainderBackward1",
    (lambda k, g, s, a: g, _rounded_div("floor")),
    saved=(Saved("self", 0, (1,)), Saved("other", 1, (1,))),
    jvp=(_identity, _rounded_div_jvp("floor")),
)
FMOD = node_class("FmodBackward0", (lambda k, g, s, a: g,), jvp=(_identity,))
FMOD_T = node_class(
    "FmodBackward1",
    (lambda k, g, s, a: g, _rounded_div("trunc")),
    saved=(Saved("self", 0, (1,)), Saved("other", 1, (1,))),
    jvp=(_identity, _rounded_div_jvp("trunc")),
)


def _binary_tensor(
    cls: Any, fn: Any, name: str, x: Tensor, y: Any, floating: bool = True
) -> Tensor:
    _tensor_arg(name, "input", 1, x)
    _tensor_arg(name, "other", 2, y)
    return binary(cls, _quiet(fn), name, x, y, floating=floating)


def _float_pair(cls: Any, fn: Any, name: str, x: Tensor, y: Any) -> Tensor:
    _tensor_arg(name, "input", 1, x)
    _tensor_arg(name, "other", 2, y)
    _float_only(name, x, y)
    return binary(cls, _quiet(fn), name, x, y)


def _atan2_np(a: Any, b: Any) -> Any:
    # NOTE: float32 evaluated in float64 and rounded: closer to torch's float32 kernel
    # (3% of elements a last bit apart) than numpy's float32 loop (17%)
    if a.dtype == np.float32:
        return np.arctan2(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    return np.arctan2(a, b)


def atan2(x: Tensor, other: Tensor) -> Tensor:
    return _binary_tensor(ATAN2, _atan2_np, "atan2", x, other)


def hypot(x: Tensor, other: Tensor) -> Tensor:
    return _float_pair(HYPOT, np.hypot, "hypot", x, other)


def _logaddexp_np(a: Any, b: Any) -> Any:
    # torch's kernel: inf when both are the same infinity, else max + log1p(exp(-|a - b|))
    from detachviz.engine import transcendental  # torch's exp, bit for bit

    m = np.maximum(a, b)
    out = m + np.log1p(transcendental.exp(-np.abs(a - b)))
    return np.where(np.isinf(a) & (a == b), a, out)


def _logaddexp2_np(a: Any, b: Any) -> Any:
    m = np.maximum(a, b)
    inv_ln2 = np.asarray(1 / _LN2_, dtype=np.result_type(a, b))
    out = m + np.log1p(np.exp2(-np.abs(a - b))) * inv_ln2
    return np.where(np.isinf(a) & (a == b), a, out)


def logaddexp(x: Tensor, other: Tensor) -> Tensor:
    return _float_pair(LOGADDEXP, _logaddexp_np, "logaddexp", x, other)


def logaddexp2(x: Tensor, other: Tensor) -> Tensor:
    return _float_pair(LOGADDEXP2, _logaddexp2_np, "logaddexp2", x, other)


def copysign(x: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return binary(COPYSIGN, np.copysign, "copysign", x, other, floating=True)
    other = as_scalar(other)
    data = x._data if x._dtype.is_floating_point else x._data.astype(np.float32)
    return apply(
        COPYSIGN_SCALAR,
        "copysign",
        (x,),
        np.copysign(data, np.asarray(other, data.dtype)),
        None,
    )


def xlogy(x: Any, other: Any) -> Tensor:
    if isinstance(x, Tensor) and isinstance(other, Tensor):
        return binary(XLOGY, _xlogy_np, "xlogy", x, other, floating=True)
    if isinstance(other, Tensor):
        x = as_scalar(x)
        xd, od, dt = _float_operands(other, x)
        return apply(XLOGY_SELF, "xlogy", (other,), _xlogy_np(od, xd), dt, (x,))
    _tensor_arg("xlogy", "input", 1, x)
    other = as_scalar(other)
    xd, od, dt = _float_operands(x, other)
    return apply(XLOGY_OTHER, "xlogy", (x,), _xlogy_np(xd, od), dt, (other,))


def _float_operands(t: Tensor, number: Any) -> tuple[Any, Any, dtypes.dtype]:
    """t's data and a Python number in their promoted dtype, ints taken to the default float."""
    from detachviz.engine.promote import operands

    data, num, dt = operands(t, number, floating=True)
    return data, np.asarray(num, dt.np), dt


def ldexp(x: Tensor, other: Tensor) -> Tensor:
    return _binary_tensor(LDEXP, lambda a, b: a * np.exp2(b), "ldexp", x, other)


def fmax(x: Tensor, other: Tensor) -> Tensor:
    return _binary_tensor(FMAX, np.fmax, "fmax", x, other, floating=False)


def fmin(x: Tensor, other: Tensor) -> Tensor:
    return _binary_tensor(FMIN, np.fmin, "fmin", x, other, floating=False)


def nextafter(x: Tensor, other: Tensor) -> Tensor:
    return _float_pair(NEXTAFTER, np.nextafter, "nextafter", x, other)


def _torch_mod(a: Any, b: Any) -> Any:
    """torch's remainder: for floats fmod, moved by b when the signs differ (so -0.0 stays
    -0.0, where numpy's mod gives 0.0); for integers Python's %."""
    if np.result_type(a, b).kind != "f":
        return np.mod(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & ((np.asarray(b) < 0) != (m < 0)), m + b, m)


def remainder(x: Any, other: Any) -> Tensor:
    """torch.remainder (Python's %: the sign of the divisor); a number divisor is
    RemainderBackward0, a tensor one RemainderBackward1."""
    if not isinstance(x, Tensor):  # remainder(number, tensor): torch has no derivative
        return binary(None, _quiet(flip(_torch_mod)), "remainder", other, x)
    if _integral_zero(x, other):
        raise RuntimeError("ZeroDivisionError")
    if isinstance(other, Tensor):
        return binary(REMAINDER_T, _quiet(_torch_mod), "remainder", x, other)
    return scalar_op(REMAINDER, _quiet(_torch_mod), "remainder", x, as_scalar(other), ())


def fmod(x: Tensor, other: Any) -> Tensor:
    """torch.fmod (C's fmod: the sign of the dividend)."""
    if _integral_zero(x, other):
        raise RuntimeError("ZeroDivisionError")
    if isinstance(other, Tensor):
        return binary(FMOD_T, _quiet(np.fmod), "fmod", x, other)
    return scalar_op(FMOD, _quiet(np.fmod), "fmod", x, as_scalar(other), ())


def _integral_zero(x: Tensor, other: Any) -> bool:
    """An integer division by zero, which torch refuses (floats give nan)."""
    if x._dtype.is_floating_point:
        return False
    if isinstance(other, Tensor):
        return not other._dtype.is_floating_point and bool((other._data == 0).any())
    return isinstance(other, int) and other == 0


def float_power(x: Any, exponent: Any) -> Tensor:
    """torch.float_power: pow in float64 (a composite: ToCopyBackward0 into PowBackward)."""
    base = x.double() if isinstance(x, Tensor) else float(x)
    if isinstance(exponent, Tensor):
        e = exponent.double()
        if not isinstance(base, Tensor):
            return rpow(e, base)
        return pow(base, e)
    return pow(base, float(exponent))  # type: ignore[arg-type]


def _binary_inplace(
    cls: Any, fn: Any, name: str, scalar_cls: Any = None, floating: bool = True
) -> Any:
    """The in-place form `name` of a binary op: `fn` on x's data and other's, written into
    x, with node `cls` (`scalar_cls` when other is a number; None: no derivative)."""

    def op_(x: Tensor, other: Any) -> Tensor:
        from detachviz.engine.promote import operands

        if not isinstance(other, Tensor):
            if scalar_cls is None and cls is not None:
                _tensor_arg(name, "other", 1, other)
            other = as_scalar(other)
        _, od, dt = operands(x, other, floating=floating)  # the out-of-place result's dtype
        node = cls if isinstance(other, Tensor) else scalar_cls
        ins = (other,) if isinstance(other, Tensor) else ()
        return inplace(x, name, node, _quiet(lambda a: fn(a.astype(dt.np), od)), ins)

    op_.__name__ = name
    return op_


from detachviz.engine.function import inplace  # noqa: E402

atan2_ = _binary_inplace(ATAN2, np.arctan2, "atan2_")
hypot_ = _binary_inplace(HYPOT, np.hypot, "hypot_")
copysign_ = _binary_inplace(COPYSIGN, np.copysign, "copysign_", COPYSIGN_SCALAR)
ldexp_ = _binary_inplace(LDEXP, lambda a, b: a * np.exp2(b), "ldexp_")
nextafter_ = _binary_inplace(NEXTAFTER, np.nextafter, "nextafter_")
remainder_ = _binary_inplace(REMAINDER_T, _torch_mod, "remainder_", REMAINDER, False)
fmod_ = _binary_inplace(FMOD_T, np.fmod, "fmod_", FMOD, False)


def xlogy_(x: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        od = other._data
        return inplace(x, "xlogy_", XLOGY, lambda a: _xlogy_np(a, od), (other,))
    v = as_scalar(other)
    return inplace(x, "xlogy_", XLOGY_OTHER, lambda a: _xlogy_np(a, v), (), (v,))


def float_power_(x: Tensor, exponent: Any) -> Tensor:
    if x._dtype is not dtypes.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {dtypes.SCALAR_NAMES[x._dtype.name]} "
            "but the operation's result requires dtype Double"
        )
    e = exponent.double() if isinstance(exponent, Tensor) else float(exponent)
    return x.pow_(e)  # type: ignore[no-any-return]


# NOTE: ATen's formulas subtract a number through sub.Scalar: SubBackward1, one edge
# (acosh's `self * self - 1`)
SUB_SCALAR = node_class("SubBackward1", (lambda k, g, s, a: g,), jvp=(_identity,))


def sub_scalar(x: Tensor, other: float) -> Tensor:
    """at::sub(x, other) with a number `other` (SubBackward1)."""
    data = np.asarray(x._data - x._data.dtype.type(other), dtype=x._data.dtype)
    return apply(SUB_SCALAR, "sub", (x,), data, x._dtype)
