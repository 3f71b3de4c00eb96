"""Elementwise ops beyond the basic math: the rounding family (round with decimals, floor,
ceil, trunc, frac, sign: zero gradient almost everywhere, as torch), lerp, addcmul and
addcdiv, with their in-place forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine.function import apply, inplace, unary
from detachviz.engine.node import Saved, node_class
from detachviz.engine.promote import result_type
from detachviz.engine.rules import zero_jvp, zero_vjp
from detachviz.engine.tensor import Tensor


def _flat(name: str) -> Any:
    return node_class(name, (zero_vjp,), jvp=(zero_jvp,))


ROUND = _flat("RoundBackward0")
ROUND_DECIMALS = _flat("RoundBackward1")
FLOOR = _flat("FloorBackward0")
CEIL = _flat("CeilBackward0")
TRUNC = _flat("TruncBackward0")
SIGN = _flat("SignBackward0")
FRAC = node_class("FracBackward0", (lambda k, g, s, a: g,), jvp=(lambda t, p, o, a: t,))


def _round_np(decimals: int) -> Any:
    if decimals == 0:
        return np.rint
    scale = 10.0**decimals

    def fn(a: np.ndarray) -> np.ndarray:
        # NOTE: torch's kernel: rint(x * 10^d) / 10^d (negative d: rint(x / 10^-d) * 10^-d)
        s = np.asarray(scale if decimals > 0 else 10.0**-decimals, a.dtype)
        if decimals > 0:
            return np.rint(a * s) / s  # type: ignore[no-any-return]
        return np.rint(a / s) * s  # type: ignore[no-any-return]

    return fn


def _integral(x: Tensor) -> bool:
    return not x._dtype.is_floating_point


def round(x: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 - torch's name
    if _integral(x):
        if decimals:
            raise RuntimeError('"round_cpu" not implemented for ' + f"'{x._dtype.legacy[:-6]}'")
        return unary(None, np.copy, "round", x)  # type: ignore[arg-type]
    return unary(ROUND_DECIMALS if decimals else ROUND, _round_np(decimals), "round", x)


def _rounding(cls: Any, fn: Any, name: str) -> tuple[Any, Any]:
    def op(x: Tensor) -> Tensor:
        if _integral(x):
            return unary(None, np.copy, name, x)  # type: ignore[arg-type]
        return unary(cls, fn, name, x)

    def op_(x: Tensor) -> Tensor:
        if _integral(x):
            return inplace(x, name + "_", None, np.copy)
        return inplace(x, name + "_", cls, fn)

    op.__name__ = name
    op_.__name__ = name + "_"
    return op, op_


floor, floor_ = _rounding(FLOOR, np.floor, "floor")
ceil, ceil_ = _rounding(CEIL, np.ceil, "ceil")
trunc, trunc_ = _rounding(TRUNC, np.trunc, "trunc")
fix, fix_ = trunc, trunc_
frac, frac_ = _rounding(FRAC, lambda a: a - np.trunc(a), "frac")


def round_(x: Tensor, *, decimals: int = 0) -> Tensor:
    if _integral(x):
        return inplace(x, "round_", None, np.copy)
    return inplace(x, "round_", ROUND_DECIMALS if decimals else ROUND, _round_np(decimals))


def _sign_np(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        return a.copy()
    return np.sign(a)  # type: ignore[no-any-return]


def sign(x: Tensor) -> Tensor:
    return unary(SIGN, _sign_np, "sign", x)


def sign_(x: Tensor) -> Tensor:
    return inplace(x, "sign_", SIGN, _sign_np)


# ----------------------------------------------------------------------------------- lerp


def _lerp_np(a: Any, b: Any, w: Any) -> Any:
    # torch's kernel: |w| < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w)
    diff = b - a
    w = np.asarray(w, dtype=np.result_type(a, b))
    return np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))


LERP_SCALAR = node_class(
    "LerpBackward0",
    (lambda k, g, s, a: g * (1 - a.weight), lambda k, g, s, a: g * a.weight),
    attrs=("weight",),
    jvp=(lambda t, p, o, a: t * (1 - a.weight), lambda t, p, o, a: t * a.weight),
)
LERP_TENSOR = node_class(
    "LerpBackward1",
    (
        lambda k, g, s, a: g * (1 - s[2]),
        lambda k, g, s, a: g * s[2],
        lambda k, g, s, a: g * (s[1] - s[0]),
    ),
    saved=(Saved("self", 0, (2,)), Saved("end", 1, (2,)), Saved("weight", 2, (0, 1))),
    jvp=(
        lambda t, p, o, a: t * (1 - p[2]),
        lambda t, p, o, a: t * p[2],
        lambda t, p, o, a: t * (p[1] - p[0]),
    ),
)


def _check_tensor(name: str, arg: str, pos: int, v: Any) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
        )


def _lerp_parts(x: Tensor, end: Tensor, weight: Any) -> tuple[Any, Any, tuple[Any, ...]]:
    _check_tensor("lerp", "end", 2, end)
    if end._dtype is not x._dtype:
        raise RuntimeError(
            f"expected dtype {x._dtype.name} for `end` but got dtype {end._dtype.name}"
        )
    if isinstance(weight, Tensor):
        return LERP_TENSOR, _lerp_np(x._data, end._data, weight._data), (x, end, weight)
    return LERP_SCALAR, _lerp_np(x._data, end._data, weight), (x, end)


def lerp(x: Tensor, end: Tensor, weight: Any) -> Tensor:
    cls, data, ins = _lerp_parts(x, end, weight)
    attrs = () if isinstance(weight, Tensor) else (weight,)
    return apply(cls, "lerp", ins, np.asarray(data, x._data.dtype), x._dtype, attrs)


def lerp_(x: Tensor, end: Tensor, weight: Any) -> Tensor:
    cls, _, ins = _lerp_parts(x, end, weight)
    wd = weight._data if isinstance(weight, Tensor) else weight
    attrs = () if isinstance(weight, Tensor) else (weight,)
    return inplace(x, "lerp_", cls, lambda a: _lerp_np(a, end._data, wd), ins[1:], attrs)


# ------------------------------------------------------------------------ addcmul / addcdiv

ADDCMUL = node_class(
    "AddcmulBackward0",
    (
        lambda k, g, s, a: g,
        lambda k, g, s, a: g * s[1] * a.value,
        lambda k, g, s, a: g * s[0] * a.value,
    ),
    saved=(Saved("tensor1", 1, (2,)), Saved("tensor2", 2, (1,))),
    attrs=("value",),
    jvp=(
        lambda t, p, o, a: t,
        lambda t, p, o, a: t * p[2] * a.value,
        lambda t, p, o, a: t * p[1] * a.value,
    ),
)
ADDCDIV = node_class(
    "AddcdivBackward0",
    (
        lambda k, g, s, a: g,
        lambda k, g, s, a: g * a.value / s[1],
        lambda k, g, s, a: -g * a.value * s[0] / (s[1] * s[1]),
    ),
    saved=(Saved("tensor1", 1, (2,)), Saved("tensor2", 2, (1, 2))),
    attrs=("value",),
    jvp=(
        lambda t, p, o, a: t,
        lambda t, p, o, a: t * a.value / p[2],
        lambda t, p, o, a: -t * a.value * p[1] / (p[2] * p[2]),
    ),
)


def _addc(cls: Any, fn: Any, name: str) -> tuple[Any, Any]:
    def parts(x: Tensor, t1: Tensor, t2: Tensor, value: Any) -> Any:
        _check_tensor(name, "tensor1", 1, t1)
        _check_tensor(name, "tensor2", 2, t2)
        dt = result_type(x, t1, t2)
        if (
            name == "addcdiv"
            and not t1._dtype.is_floating_point
            and not t2._dtype.is_floating_point
        ):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) using PyTorch 1.5.0 or later."
            )
        return dt, np.asarray(value, dt.np)

    def op(x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        dt, v = parts(x, tensor1, tensor2, value)
        cast = [t._data.astype(dt.np, copy=False) for t in (x, tensor1, tensor2)]
        data = np.asarray(fn(cast[0], v, cast[1], cast[2]), dt.np)
        return apply(cls, name, (x, tensor1, tensor2), data, dt, (value,))

    def op_(x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        dt, v = parts(x, tensor1, tensor2, value)
        t1, t2 = tensor1._data, tensor2._data
        return inplace(
            x,
            name + "_",
            cls,
            lambda a: fn(a, v.astype(a.dtype), t1, t2),
            (tensor1, tensor2),
            (value,),
        )

    op.__name__ = name
    op_.__name__ = name + "_"
    return op, op_


addcmul, addcmul_ = _addc(ADDCMUL, lambda x, v, a, b: x + v * a * b, "addcmul")
addcdiv, addcdiv_ = _addc(ADDCDIV, lambda x, v, a, b: x + v * (a / b), "addcdiv")


# ----------------------------------------------------------------- mathops: frexp
# x = mantissa * 2 ** exponent, |mantissa| in [0.5, 1): torch.return_types.frexp; the mantissa
# is differentiable (FrexpBackward0: grad / exponent.exp2(), the exponent kept as its attr)


def _frexp_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    e = a.exponent
    if isinstance(g, np.ndarray):
        return g / np.exp2(e._data).astype(g.dtype)
    return g / e.exp2()


FREXP = node_class(
    "FrexpBackward0",
    (_frexp_back,),
    attrs=("exponent",),
    jvp=(lambda t, p, o, a: t / np.exp2(a.exponent._data).astype(t.dtype),),
)


def _frexp_type() -> Any:
    from detachviz.engine.ops.reduce import return_type

    return return_type("frexp", ("mantissa", "exponent"))


frexp_type = _frexp_type()


def frexp(x: Tensor) -> Any:
    if not x._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    from detachviz.engine import dtype as dtypes

    m, e = np.frexp(x._data)
    exponent = apply(None, "frexp", (x,), np.asarray(e, dtype=np.int32), dtypes.int32)
    mantissa = apply(FREXP, "frexp", (x,), np.asarray(m, x._data.dtype), x._dtype, (exponent,))
    return frexp_type(mantissa, exponent)
