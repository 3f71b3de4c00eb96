"""Comparisons and other non-differentiable ops: eq/ne/lt/le/gt/ge, bitwise and/or/xor/not,
floor_divide, remainder, isnan/isinf/isfinite, logical_not, any/all, equal, allclose, isclose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import (
    apply,
    binary,
    inplace,
)
from detachviz.engine.node import Node, node_class
from detachviz.engine.promote import broadcast_error
from detachviz.engine.rules import zero_jvp, zero_vjp
from detachviz.engine.tensor import Tensor


def _compare(fn: Any, name: str) -> Any:
    def op(x: Tensor, y: Any) -> Tensor:
        if y is None:
            return NotImplemented if name in ("eq", "ne") else _type_error(name, y)
        return binary(None, fn, name, x, y)

    op.__name__ = name
    return op


def _type_error(name: str, y: Any) -> Any:
    raise TypeError(f"'{name}' not supported between 'Tensor' and '{type(y).__name__}'")


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")


def _bool_or_int(fn: Any, name: str) -> Any:
    def op(x: Tensor, y: Any) -> Tensor:
        if x._dtype.is_floating_point or (isinstance(y, Tensor) and y._dtype.is_floating_point):
            raise RuntimeError(f"\"{name}_cpu\" not implemented for 'Float'")
        return binary(None, fn, name, x, y)

    return op


bitwise_and = _bool_or_int(np.bitwise_and, "bitwise_and")
bitwise_or = _bool_or_int(np.bitwise_or, "bitwise_or")
bitwise_xor = _bool_or_int(np.bitwise_xor, "bitwise_xor")


def invert(x: Tensor) -> Tensor:
    if x._dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return apply(None, "bitwise_not", (x,), np.invert(x._data), x._dtype)


def floordiv(x: Tensor, y: Any) -> Tensor:
    return binary(None, np.floor_divide, "floor_divide", x, y)


def mod(x: Tensor, y: Any) -> Tensor:
    return binary(None, np.mod, "remainder", x, y)


def _predicate(fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return apply(None, name, (x,), fn(x._data), dtypes.bool_)

    op.__name__ = name
    return op


isnan = _predicate(np.isnan, "isnan")
isinf = _predicate(np.isinf, "isinf")
isfinite = _predicate(np.isfinite, "isfinite")
logical_not = _predicate(np.logical_not, "logical_not")


def _reduce_bool(fn: Any, name: str) -> Any:
    def op(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return apply(None, name, (x,), fn(x._data), dtypes.bool_)
        return apply(None, name, (x,), fn(x._data, axis=dim, keepdims=keepdim), dtypes.bool_)

    op.__name__ = name
    return op


any_ = _reduce_bool(np.any, "any")
all_ = _reduce_bool(np.all, "all")


def equal(x: Tensor, y: Tensor) -> bool:
    return x._data.shape == y._data.shape and bool(np.array_equal(x._data, y._data))


def allclose(
    x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    return bool(np.allclose(x._data, y._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(
    x: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """torch.isclose: both tensors of one dtype, broadcast; equal infinities are close."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    if x._dtype is not other._dtype:
        a, b = dtypes.SCALAR_NAMES[x._dtype.name], dtypes.SCALAR_NAMES[other._dtype.name]
        raise RuntimeError(f"{a} did not match {b}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    try:
        with np.errstate(all="ignore"):
            data = np.isclose(x._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except ValueError:
        raise broadcast_error(x._data.shape, other._data.shape) from None
    return apply(None, "isclose", (x, other), np.asarray(data), dtypes.bool_)


# --------------------------------------------------------------------------------------------
# mathops: the logical ops, bitwise_not as a function, signbit/isposinf/isneginf/isreal,
# heaviside, gcd/lcm, floor_divide (no derivative: torch has none either)


def _tensor_arg(name: str, arg: str, pos: int, v: Any) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
        )


def _logical(fn: Any, name: str) -> Any:
    def op(x: Tensor, other: Tensor) -> Tensor:
        _tensor_arg(name, "input", 1, x)
        _tensor_arg(name, "other", 2, other)
        try:
            data = fn(x._data, other._data)
        except ValueError:
            raise broadcast_error(x._data.shape, other._data.shape) from None
        return apply(None, name, (x, other), np.asarray(data), dtypes.bool_)

    def op_(x: Tensor, other: Tensor) -> Tensor:
        _tensor_arg(name + "_", "other", 1, other)
        od = other._data
        return inplace(x, name + "_", None, lambda a: fn(a, od).astype(a.dtype), (other,))

    op.__name__ = name
    op_.__name__ = name + "_"
    return op, op_


logical_and, logical_and_ = _logical(np.logical_and, "logical_and")
logical_or, logical_or_ = _logical(np.logical_or, "logical_or")
logical_xor, logical_xor_ = _logical(np.logical_xor, "logical_xor")


def _kind(t: Tensor) -> str:
    return t._dtype.legacy.removesuffix("Tensor")


def bitwise_not(x: Tensor) -> Tensor:
    if x._dtype.is_floating_point:
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_kind(x)}'")
    return invert(x)


def signbit(x: Tensor) -> Tensor:
    return apply(None, "signbit", (x,), np.signbit(x._data), dtypes.bool_)


def _inf_test(sign: float, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return apply(None, name, (x,), np.asarray(x._data == sign), dtypes.bool_)

    op.__name__ = name
    return op


isposinf = _inf_test(np.inf, "isposinf")
isneginf = _inf_test(-np.inf, "isneginf")


def isreal(x: Tensor) -> Tensor:
    """Every element of a real tensor is real (detachviz has no complex dtypes)."""
    return apply(None, "isreal", (x,), np.ones(x._data.shape, dtype=bool), dtypes.bool_)


def heaviside(x: Tensor, values: Tensor) -> Tensor:
    _tensor_arg("heaviside", "input", 1, x)
    _tensor_arg("heaviside", "values", 2, values)
    if x._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")

    def fn(a: Any, v: Any) -> Any:
        zero = np.zeros((), a.dtype)
        return np.where(a == 0, v, (a > zero).astype(a.dtype))

    return binary(None, fn, "heaviside", x, values)


def _integer_pair(fn: Any, name: str) -> Any:
    def op(x: Tensor, other: Tensor) -> Tensor:
        _tensor_arg(name, "input", 1, x)
        _tensor_arg(name, "other", 2, other)
        for t in (x, other):
            if t._dtype.is_floating_point:
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_kind(t)}'")
        return binary(None, fn, name, x, other)

    op.__name__ = name
    return op


def _lcm_np(a: Any, b: Any) -> Any:
    return np.abs(np.lcm(a, b))


gcd = _integer_pair(np.gcd, "gcd")
lcm = _integer_pair(_lcm_np, "lcm")


def floor_divide(x: Tensor, other: Any) -> Tensor:
    return floordiv(x, other)


# How an in-place op below records itself on a tensor that requires grad:
# `history(other)` -> (node class, the inputs after self that get edges).
History = Callable[[Any], tuple[type[Node], tuple[Any, ...]]]


def _compared(torch_name: str) -> History:
    """An in-place comparison's history: torch's `GtBackward0` for a number, `GtBackward1`
    (an edge to the tensor `other`, None when it needs no grad) for a tensor; zero grads."""
    by_number = node_class(f"{torch_name}Backward0", (zero_vjp,), jvp=(zero_jvp,))
    by_tensor = node_class(f"{torch_name}Backward1", (zero_vjp, zero_vjp), jvp=(zero_jvp, zero_jvp))

    def history(other: Any) -> tuple[type[Node], tuple[Any, ...]]:
        return (by_tensor, (other,)) if isinstance(other, Tensor) else (by_number, ())

    return history


def _not_implemented(name: str) -> History:
    """torch's `NotImplemented` node for an in-place op with no derivative formula: made
    when the op writes into a tensor that requires grad (with an edge to `other` only when
    that requires grad too), it fails only in backward."""

    def fail(k: Any, g: Any, s: Any, a: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    def fail_forward(t: Any, p: Any, o: Any, a: Any) -> Any:  # before the write, as torch
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{name} that does not support it."
        )

    def cls(n: int) -> type[Node]:
        return node_class(
            "torch::autograd::NotImplemented",
            (fail,) * n,
            cls_name="NotImplemented",
            key=f"NotImplemented {name} {n}",
            jvp=(fail_forward,) * n,
        )

    alone, paired = cls(1), cls(2)

    def history(other: Any) -> tuple[type[Node], tuple[Any, ...]]:
        if isinstance(other, Tensor) and other._requires_grad:
            return paired, (other,)
        return alone, ()

    return history


def _written(fn: Any, name: str, history: History | None = None, check: Any = None) -> Any:
    """The in-place form `name` of a non-differentiable binary op: `fn(x, other)` written
    into x in x's dtype (`gt_` writes 1/0); `history` is what it records when x or `other`
    requires grad (None: nothing, the op refuses floats); `check(x, other)` refuses what
    torch refuses."""

    def op_(x: Tensor, other: Any) -> Tensor:
        if check is not None:
            check(x, other)
        od = other._data if isinstance(other, Tensor) else other
        cls, ins = (None, ()) if history is None else history(other)
        return inplace(x, name, cls, lambda a: np.asarray(fn(a, od)).astype(a.dtype), ins)

    op_.__name__ = name
    return op_


def _no_float(name: str) -> Any:
    def check(x: Tensor, other: Any) -> None:
        floats = [x._dtype.is_floating_point]
        if isinstance(other, Tensor):
            floats.append(other._dtype.is_floating_point)
        else:
            floats.append(isinstance(other, float))
        if any(floats):
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Float'")

    return check


def _heaviside_check(x: Tensor, other: Any) -> None:
    _tensor_arg("heaviside_", "values", 1, other)
    if x._dtype is not other._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def _heaviside_np(a: Any, v: Any) -> Any:
    return np.where(a == 0, v, (a > np.zeros((), a.dtype)).astype(a.dtype))


eq_ = _written(np.equal, "eq_", _compared("Eq"))
ne_ = _written(np.not_equal, "ne_", _compared("Ne"))
lt_ = _written(np.less, "lt_", _compared("Lt"))
le_ = _written(np.less_equal, "le_", _compared("Le"))
gt_ = _written(np.greater, "gt_", _compared("Gt"))
ge_ = _written(np.greater_equal, "ge_", _compared("Ge"))
# torch's aliases: the same ops (and the same Gt/Ge/Lt/Le/Ne nodes)
greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_
floor_divide_ = _written(np.floor_divide, "floor_divide_", _not_implemented("floor_divide_"))
bitwise_and_ = _written(np.bitwise_and, "bitwise_and_", check=_no_float("bitwise_and"))
bitwise_or_ = _written(np.bitwise_or, "bitwise_or_", check=_no_float("bitwise_or"))
bitwise_xor_ = _written(np.bitwise_xor, "bitwise_xor_", check=_no_float("bitwise_xor"))
gcd_ = _written(np.gcd, "gcd_", check=_no_float("gcd"))
lcm_ = _written(_lcm_np, "lcm_", check=_no_float("lcm"))
heaviside_ = _written(
    _heaviside_np, "heaviside_", _not_implemented("heaviside_"), check=_heaviside_check
)


def bitwise_not_(x: Tensor) -> Tensor:
    if x._dtype.is_floating_point:
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_kind(x)}'")
    return inplace(x, "bitwise_not_", None, np.invert)
