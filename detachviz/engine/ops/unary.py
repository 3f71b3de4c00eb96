"""Elementwise math (exp, log, sqrt, sin, cos, tanh, sigmoid, abs, relu, clamp), copies
(clone, contiguous) and dtype casts (to, float, double, type, ...), with their rows and JVPs.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import transcendental
from detachviz.engine.arrays import (
    ZERO_OF,
)
from detachviz.engine.device import device, place
from detachviz.engine.function import (
    apply,
    float_unary,
    unary,
)
from detachviz.engine.node import RESULT, Node, Saved, node_class, set_jvp
from detachviz.engine.rules import NP, backward_op, zero_input
from detachviz.engine.tensor import Tensor

ABS = node_class(
    "AbsBackward0", (lambda k, g, s, a: g * k.sign(s[0]),), saved=(Saved("self", 0, (0,)),)
)
EXP = node_class(
    "ExpBackward0", (lambda k, g, s, a: g * s[0],), saved=(Saved("result", RESULT, (0,)),)
)
LOG = node_class("LogBackward0", (lambda k, g, s, a: g / s[0],), saved=(Saved("self", 0, (0,)),))
SQRT = node_class(
    "SqrtBackward0",
    (lambda k, g, s, a: g / k.mul_scalar(s[0], 2),),
    saved=(Saved("result", RESULT, (0,)),),
)
SIN = node_class(
    "SinBackward0", (lambda k, g, s, a: g * k.cos(s[0]),), saved=(Saved("self", 0, (0,)),)
)
COS = node_class(
    "CosBackward0", (lambda k, g, s, a: g * -k.sin(s[0]),), saved=(Saved("self", 0, (0,)),)
)
# torch's tanh_backward, sigmoid_backward and threshold_backward: under create_graph one node
# each (TanhBackwardBackward0, ...), with derivatives.yaml's formulas for their own backward
TANH_BACK = backward_op(
    "TanhBackwardBackward0",
    lambda k, g, y, a: k.tanh_back(g, y),
    lambda k, gg, go, y, a: gg * (k.mul_scalar(y, -2) * go),
    saved=("grad_output", "output"),
)
SIGMOID_BACK = backward_op(
    "SigmoidBackwardBackward0",
    lambda k, g, y, a: k.sigmoid_back(g, y),
    lambda k, gg, go, y, a: gg * go * k.add_scalar(k.mul_scalar(y, -2), 1),
    saved=("grad_output", "output"),
)
THRESHOLD_BACK = backward_op(
    "ThresholdBackwardBackward0",
    lambda k, g, y, a: k.relu_back(g, y),
    zero_input,
    attrs=("threshold",),
    saved=(None, "self"),
)


class _Threshold(NamedTuple):
    threshold: float


RELU_THRESHOLD = _Threshold(0)  # relu's backward: threshold_backward(g, y, 0)


def _result_rule(plain: Any, named: Any, attrs: Any = None) -> Any:
    """The backward of a function of its saved result y: plain backward calls NP's kernel
    `plain(g, y)` directly (what `named` runs on arrays, three calls fewer); create_graph
    makes torch's named node (`named`: TanhBackwardBackward0, ...), with `attrs` if given."""
    return lambda k, g, s, a: (
        plain(g, s[0]) if k is NP else named(k, g, s[0], a if attrs is None else attrs)
    )


TANH = node_class(
    "TanhBackward0",
    (_result_rule(NP.tanh_back, TANH_BACK),),
    saved=(Saved("result", RESULT, (0,)),),
)
SIGMOID = node_class(
    "SigmoidBackward0",
    (_result_rule(NP.sigmoid_back, SIGMOID_BACK),),
    saved=(Saved("result", RESULT, (0,)),),
)
RELU = node_class(
    "ReluBackward0",
    (_result_rule(NP.relu_back, THRESHOLD_BACK, RELU_THRESHOLD),),
    saved=(Saved("result", RESULT, (0,)),),
)


def clamp_mask(x: Any, lo: Any, hi: Any) -> Any:
    m = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        m &= x >= lo
    if hi is not None:
        m &= x <= hi
    return m


CLAMP = node_class(
    "ClampBackward1",
    (lambda k, g, s, a: k.where0(clamp_mask(k.data(s[0]), a.min, a.max), g),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("min", "max"),
)
CLONE = node_class("CloneBackward0", (lambda k, g, s, a: g,))
TOCOPY = node_class("ToCopyBackward0", (lambda k, g, s, a: g,))
ALIAS = node_class("AliasBackward0", (lambda k, g, s, a: g,))


def _identity(t: Any, p: Any, out: Any, a: Any) -> Any:
    return t


set_jvp(ABS, (lambda t, p, o, a: t * np.sign(p[0]),))
set_jvp(EXP, (lambda t, p, o, a: t * o,))
set_jvp(LOG, (lambda t, p, o, a: t / p[0],))
set_jvp(SQRT, (lambda t, p, o, a: t / (2 * o),))
set_jvp(SIN, (lambda t, p, o, a: t * np.cos(p[0]),))
set_jvp(COS, (lambda t, p, o, a: -t * np.sin(p[0]),))
set_jvp(TANH, (lambda t, p, o, a: t * (1 - o * o),))
set_jvp(SIGMOID, (lambda t, p, o, a: t * (1 - o) * o,))
set_jvp(RELU, (lambda t, p, o, a: np.where(o > 0, t, 0),))
set_jvp(CLAMP, (lambda t, p, o, a: np.where(clamp_mask(p[0], a.min, a.max), t, 0),))
set_jvp(CLONE, (_identity,))
set_jvp(TOCOPY, (_identity,))


def _math(cls: type[Node], fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        if x._dtype.is_floating_point:  # the common case, one call less
            return unary(cls, fn, name, x)
        return float_unary(cls, fn, name, x)

    op.__name__ = name
    return op


exp = _math(EXP, transcendental.exp, "exp")
log = _math(LOG, transcendental.log, "log")
sqrt = _math(SQRT, transcendental.sqrt, "sqrt")
sin = _math(SIN, transcendental.sin, "sin")
cos = _math(COS, transcendental.cos, "cos")
tanh = _math(TANH, transcendental.tanh, "tanh")
sigmoid_np = transcendental.sigmoid  # torch's float32 kernel split: see engine/transcendental


sigmoid = _math(SIGMOID, sigmoid_np, "sigmoid")


def abs(x: Tensor) -> Tensor:  # noqa: A001 - torch's name
    return unary(ABS, np.abs, "abs", x)


def relu_np(a: Any) -> Any:
    return np.maximum(a, ZERO_OF.get(a.dtype, 0))


def relu(x: Tensor) -> Tensor:
    return unary(RELU, relu_np, "relu", x)


def clamp(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        raise NotImplementedError("clamp with tensor bounds is not supported by detachviz yet")
    return unary(
        CLAMP, lambda a: np.clip(a, min, max).astype(a.dtype, copy=False), "clamp", x, (min, max)
    )


def clone_np(a: np.ndarray) -> np.ndarray:
    # NOTE: torch's clone preserves a dense layout (a transposed clone stays transposed) but
    # makes overlapping (expanded) tensors contiguous
    if a.flags.c_contiguous or 0 in a.strides:
        return np.array(a, order="C")
    return np.array(a, order="K")


def clone(x: Tensor, *, memory_format: Any = None) -> Tensor:
    return unary(CLONE, clone_np, "clone", x)


def to_dtype(x: Tensor, dt: dtypes.dtype, name: str = "to", copy: bool = False) -> Tensor:
    if dt is x._dtype and not copy:
        return x
    # NOTE: a cast to an integer or bool dtype is not differentiable: no grad_fn
    cls = TOCOPY if dt.is_floating_point else None
    return apply(cls, name, (x,), x._data.astype(dt.np), dt)


# --------------------------------------------------------------------------------------------
# views: share storage and version counter, `_base` points at the root


def contiguous(x: Tensor, memory_format: Any = None) -> Tensor:
    if x._data.flags.c_contiguous:
        return x
    return unary(CLONE, np.ascontiguousarray, "contiguous", x)


_TO_KWARGS = ("device", "dtype", "non_blocking", "copy", "memory_format")
_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
)


def to(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    bad = [k for k in kwargs if k not in _TO_KWARGS]
    if bad:
        got = ", ".join(f"{k}={type(v).__name__}" for k, v in kwargs.items())
        raise TypeError(
            f"to() received an invalid combination of arguments - got ({got}, ), but expected "
            f"one of:\n{_TO_SIGNATURES}"
        )
    dt = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    place(kwargs.get("device"))
    for a in args:
        if isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, Tensor):
            dt = a._dtype
        elif isinstance(a, (str, device, int)) and not isinstance(a, bool):
            place(a)
    if dt is None:
        return clone(x) if copy else x
    return to_dtype(x, dt, copy=copy)


_TYPE_NAMES = {f"torch.{d.legacy}": d for d in dtypes.ALL}


def type_(x: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    if dtype is None:
        return f"torch.{x._dtype.legacy}"
    if isinstance(dtype, str):
        dtype = _TYPE_NAMES[dtype]
    elif not isinstance(dtype, dtypes.dtype):
        dtype = getattr(dtype, "_legacy_dtype", dtype)
    return to_dtype(x, dtype)


# --------------------------------------------------------------------------------------------
# more elementary functions (tan, the inverse trig and hyperbolic ones, log1p, expm1, log2,
# log10, exp2, rsqrt); each rule calls the elementary function by name, on arrays (`NP`) or
# as a tensor method (create_graph)


def _call(k: Any, name: str, x: Any) -> Any:
    return getattr(np, name)(x) if k is NP else getattr(x, name)()


_LN2 = float(np.log(2.0))
_LN10 = float(np.log(10.0))


def _elementary(
    name: str, cls_name: str, fn: Any, saves_result: bool, vjp: Any, jvp: Any
) -> tuple[type[Node], Any]:
    src = RESULT if saves_result else 0
    cls = node_class(
        cls_name,
        (vjp,),
        saved=(Saved("result" if saves_result else "self", src, (0,)),),
        jvp=(jvp,),
    )
    return cls, _math(cls, fn, name)


TAN, tan = _elementary(
    "tan",
    "TanBackward0",
    np.tan,
    True,
    lambda k, g, s, a: g * k.add_scalar(k.square(s[0]), 1),
    lambda t, p, o, a: t * (1 + o * o),
)
ASIN, asin = _elementary(
    "asin",
    "AsinBackward0",
    np.arcsin,
    False,
    lambda k, g, s, a: g / _call(k, "sqrt", 1 - s[0] * s[0]),
    lambda t, p, o, a: t / np.sqrt(1 - p[0] * p[0]),
)
ACOS, acos = _elementary(
    "acos",
    "AcosBackward0",
    np.arccos,
    False,
    lambda k, g, s, a: -g / _call(k, "sqrt", 1 - s[0] * s[0]),
    lambda t, p, o, a: -t / np.sqrt(1 - p[0] * p[0]),
)
ATAN, atan = _elementary(
    "atan",
    "AtanBackward0",
    np.arctan,
    False,
    lambda k, g, s, a: g / k.add_scalar(s[0] * s[0], 1),
    lambda t, p, o, a: t / (p[0] * p[0] + 1),
)
SINH, sinh = _elementary(
    "sinh",
    "SinhBackward0",
    np.sinh,
    False,
    lambda k, g, s, a: g * _call(k, "cosh", s[0]),
    lambda t, p, o, a: t * np.cosh(p[0]),
)
COSH, cosh = _elementary(
    "cosh",
    "CoshBackward0",
    np.cosh,
    False,
    lambda k, g, s, a: g * _call(k, "sinh", s[0]),
    lambda t, p, o, a: t * np.sinh(p[0]),
)
LOG1P, log1p = _elementary(
    "log1p",
    "Log1PBackward0",
    np.log1p,
    False,
    lambda k, g, s, a: g / (s[0] + 1),
    lambda t, p, o, a: t / (p[0] + 1),
)
EXPM1, expm1 = _elementary(
    "expm1",
    "Expm1Backward0",
    np.expm1,
    True,
    lambda k, g, s, a: g * (s[0] + 1),
    lambda t, p, o, a: t * (o + 1),
)
LOG2, log2 = _elementary(
    "log2",
    "Log2Backward0",
    np.log2,
    False,
    lambda k, g, s, a: g / (s[0] * _LN2),
    lambda t, p, o, a: t / (p[0] * _LN2),
)
LOG10, log10 = _elementary(
    "log10",
    "Log10Backward0",
    np.log10,
    False,
    lambda k, g, s, a: g / (s[0] * _LN10),
    lambda t, p, o, a: t / (p[0] * _LN10),
)
EXP2, exp2 = _elementary(
    "exp2",
    "Exp2Backward0",
    np.exp2,
    True,
    lambda k, g, s, a: g * (s[0] * _LN2),
    lambda t, p, o, a: t * (o * _LN2),
)


def rsqrt_np(a: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 / np.sqrt(a)


RSQRT, rsqrt = _elementary(
    "rsqrt",
    "RsqrtBackward0",
    rsqrt_np,
    True,
    lambda k, g, s, a: k.mul_scalar(g, -0.5) * k.cube(s[0]),
    lambda t, p, o, a: -0.5 * t * o * o * o,
)


# --------------------------------------------------------------------------------------------
# mathops: the inverse hyperbolic functions, square, deg2rad/rad2deg, sgn, positive,
# nan_to_num, clamp_min/clamp_max, and their in-place forms (derivatives.yaml's formulas)

from detachviz.engine.function import binary as function_binary  # noqa: E402
from detachviz.engine.function import inplace as function_inplace  # noqa: E402


def _rsqrt(k: Any, x: Any) -> Any:
    return rsqrt_np(x) if k is NP else x.rsqrt()


def _minus_one(k: Any, x: Any) -> Any:
    from detachviz.engine.ops.arith import sub_scalar

    return x - 1 if k is NP else sub_scalar(x, 1)


ASINH, asinh = _elementary(
    "asinh",
    "AsinhBackward0",
    np.arcsinh,
    False,
    lambda k, g, s, a: g * _rsqrt(k, k.add_scalar(k.square(s[0]), 1)),
    lambda t, p, o, a: t * rsqrt_np(p[0] * p[0] + 1),
)
ACOSH, acosh = _elementary(
    "acosh",
    "AcoshBackward0",
    np.arccosh,
    False,
    lambda k, g, s, a: g * _rsqrt(k, _minus_one(k, s[0] * s[0])),
    lambda t, p, o, a: t * rsqrt_np(p[0] * p[0] - 1),
)


def _via_float64(fn: Any) -> Any:
    """`fn` on float32 data evaluated in float64 and rounded once: torch's float32 kernel is
    glibc's (nearly always the correctly rounded value), which numpy's float32 loop is not."""

    def run(a: Any) -> Any:
        with np.errstate(all="ignore"):
            if a.dtype == np.float32:
                return fn(a.astype(np.float64)).astype(np.float32)
            return fn(a)

    return run


atanh_np = _via_float64(np.arctanh)
ATANH, atanh = _elementary(
    "atanh",
    "AtanhBackward0",
    atanh_np,
    False,
    lambda k, g, s, a: k.mul_scalar(g, 1) / k.rsub_scalar(1, k.square(s[0])),
    lambda t, p, o, a: t / (1 - p[0] * p[0]),
)


def _inplace_of(cls: type[Node] | None, fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return function_inplace(x, name, cls, fn)

    op.__name__ = name
    return op


def _quiet(fn: Any) -> Any:
    def run(a: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(a)

    return run


def _not_implemented(what: str) -> Any:
    def rule(k: Any, g: Any, s: Any, a: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return rule


# NOTE: torch 2.13 has no derivative for the in-place inverse hyperbolics: their node
# (AsinhBackward1, ...) raises at backward, and forward AD refuses them
ASINH_ = node_class("AsinhBackward1", (_not_implemented("inplace version of asinh"),))
ACOSH_ = node_class("AcoshBackward1", (_not_implemented("inplace version of acosh"),))
ATANH_ = node_class("AtanhBackward1", (_not_implemented("inplace version of atanh"),))
asinh_ = _inplace_of(ASINH_, np.arcsinh, "asinh_")
acosh_ = _inplace_of(ACOSH_, _quiet(np.arccosh), "acosh_")
atanh_ = _inplace_of(ATANH_, atanh_np, "atanh_")


def square(x: Tensor) -> Tensor:
    """torch.square is x.pow(2) (PowBackward0); a bool tensor squares as int64."""
    if x._dtype is dtypes.bool_:
        x = to_dtype(x, dtypes.int64)
    return x.pow(2)  # type: ignore[no-any-return]


def square_(x: Tensor) -> Tensor:
    return x.pow_(2)  # type: ignore[no-any-return]


_DEG = 180.0 / np.pi
_RAD = np.pi / 180.0


def _scaled_np(c: float) -> Any:
    def fn(a: Any) -> Any:
        return a * np.asarray(c, a.dtype)

    return fn


DEG2RAD = node_class(
    "Deg2RadBackward0",
    (lambda k, g, s, a: k.mul_scalar(g, _RAD),),
    jvp=(lambda t, p, o, a: t * _RAD,),
)
RAD2DEG = node_class(
    "Rad2DegBackward0",
    (lambda k, g, s, a: k.mul_scalar(g, _DEG),),
    jvp=(lambda t, p, o, a: t * _DEG,),
)
deg2rad = _math(DEG2RAD, _scaled_np(_RAD), "deg2rad")
rad2deg = _math(RAD2DEG, _scaled_np(_DEG), "rad2deg")
deg2rad_ = _inplace_of(DEG2RAD, _scaled_np(_RAD), "deg2rad_")
rad2deg_ = _inplace_of(RAD2DEG, _scaled_np(_DEG), "rad2deg_")

# sgn of a real tensor is its sign; torch's sgn_backward is zero for real inputs (the node
# abs's create_graph formula draws: rules.SGN)
from detachviz.engine.rules import SGN  # noqa: E402


def _sgn_np(a: Any) -> Any:
    return a.copy() if a.dtype == np.bool_ else np.sign(a)


def sgn(x: Tensor) -> Tensor:
    return unary(SGN, _sgn_np, "sgn", x)


sgn_ = _inplace_of(SGN, _sgn_np, "sgn_")


def positive(x: Tensor) -> Tensor:
    """torch.positive: the tensor itself (no new node); refused on bool as torch does."""
    if x._dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return x


NAN_TO_NUM = node_class(
    "NanToNumBackward0",
    # grad * at::isfinite(self): a product with the mask (MulBackward0)
    (lambda k, g, s, a: g * (np.isfinite(s[0]) if k is NP else s[0].isfinite()),),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: np.where(np.isfinite(p[0]), t, 0),),
)


def _nan_to_num_np(nan: Any, posinf: Any, neginf: Any) -> Any:
    def fn(a: Any) -> Any:
        if a.dtype.kind != "f":
            return a.copy()
        info = np.finfo(a.dtype)
        hi = info.max if posinf is None else posinf
        lo = info.min if neginf is None else neginf
        with np.errstate(over="ignore"):
            out = np.where(np.isnan(a), a.dtype.type(nan), a)
            out = np.where(out == np.inf, a.dtype.type(hi), out)
            return np.where(out == -np.inf, a.dtype.type(lo), out).astype(a.dtype)

    return fn


def nan_to_num(x: Tensor, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    fn = _nan_to_num_np(nan, posinf, neginf)
    if not x._dtype.is_floating_point:
        return apply(None, "nan_to_num", (x,), fn(x._data), x._dtype)
    return unary(NAN_TO_NUM, fn, "nan_to_num", x)


def nan_to_num_(x: Tensor, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    cls = NAN_TO_NUM if x._dtype.is_floating_point else None
    return function_inplace(x, "nan_to_num_", cls, _nan_to_num_np(nan, posinf, neginf))


# clamp_min / clamp_max: a number bound (ClampMinBackward0 saving `min`) or a tensor bound
# (ClampMinBackward1: both get gradient, split by which side won)
CLAMP_MIN = node_class(
    "ClampMinBackward0",
    (lambda k, g, s, a: k.where0(k.data(s[0]) >= a.min, g),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("min",),
    jvp=(lambda t, p, o, a: np.where(p[0] >= a.min, t, 0),),
)
CLAMP_MAX = node_class(
    "ClampMaxBackward0",
    (lambda k, g, s, a: k.where0(k.data(s[0]) <= a.max, g),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("max",),
    jvp=(lambda t, p, o, a: np.where(p[0] <= a.max, t, 0),),
)
CLAMP_MIN_T = node_class(
    "ClampMinBackward1",
    (
        lambda k, g, s, a: k.where0(k.data(s[0]) >= k.data(s[1]), g),
        lambda k, g, s, a: k.where0(k.data(s[0]) < k.data(s[1]), g),
    ),
    saved=(Saved("self", 0, (0, 1)), Saved("min", 1, (0, 1))),
    jvp=(
        lambda t, p, o, a: np.where(p[0] >= p[1], t, 0),
        lambda t, p, o, a: np.where(p[0] < p[1], t, 0),
    ),
)
CLAMP_MAX_T = node_class(
    "ClampMaxBackward1",
    (
        lambda k, g, s, a: k.where0(k.data(s[0]) <= k.data(s[1]), g),
        lambda k, g, s, a: k.where0(k.data(s[0]) > k.data(s[1]), g),
    ),
    saved=(Saved("self", 0, (0, 1)), Saved("max", 1, (0, 1))),
    jvp=(
        lambda t, p, o, a: np.where(p[0] <= p[1], t, 0),
        lambda t, p, o, a: np.where(p[0] > p[1], t, 0),
    ),
)


def clamp_min(x: Tensor, min: Any) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor):
        return function_binary(CLAMP_MIN_T, np.maximum, "clamp_min", x, min)
    return unary(
        CLAMP_MIN,
        lambda a: np.maximum(a, min).astype(a.dtype, copy=False),
        "clamp_min",
        x,
        (min,),
    )


def clamp_max(x: Tensor, max: Any) -> Tensor:  # noqa: A002
    if isinstance(max, Tensor):
        return function_binary(CLAMP_MAX_T, np.minimum, "clamp_max", x, max)
    return unary(
        CLAMP_MAX,
        lambda a: np.minimum(a, max).astype(a.dtype, copy=False),
        "clamp_max",
        x,
        (max,),
    )


def clamp_min_(x: Tensor, min: Any) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor):
        md = min._data
        return function_inplace(x, "clamp_min_", CLAMP_MIN_T, lambda a: np.maximum(a, md), (min,))
    return function_inplace(x, "clamp_min_", CLAMP_MIN, lambda a: np.maximum(a, min), (), (min,))


def clamp_max_(x: Tensor, max: Any) -> Tensor:  # noqa: A002
    if isinstance(max, Tensor):
        md = max._data
        return function_inplace(x, "clamp_max_", CLAMP_MAX_T, lambda a: np.minimum(a, md), (max,))
    return function_inplace(x, "clamp_max_", CLAMP_MAX, lambda a: np.minimum(a, max), (), (max,))
