"""Comparisons and other non-differentiable ops: eq/ne/lt/le/gt/ge, bitwise and/or/xor/not,
floor_divide, remainder, isnan/isinf/isfinite, logical_not, any/all, equal, allclose, isclose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import (
    apply,
    binary,
)
from detachviz.engine.promote import broadcast_error
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
