"""Type promotion as torch does it (`result_type`: dimensioned tensors > 0-dim tensors > python
numbers, by category bool < integer < floating) and the operands of a binary op."""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import state
from detachviz.engine.tensor import BY_NP, Tensor

PY_SCALARS = (float, int, bool)


def _category(d: dtypes.dtype) -> int:
    return 2 if d.is_floating_point else (0 if d is dtypes.bool_ else 1)


def promote_pair(a: dtypes.dtype, b: dtypes.dtype) -> dtypes.dtype:
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    return BY_NP[np.promote_types(a.np, b.np)]


def _scalar_dtype(v: Any) -> dtypes.dtype:
    if isinstance(v, bool):
        return dtypes.bool_
    if isinstance(v, int):
        return dtypes.int64
    return state.default_dtype  # NOTE: a python float joins as the default dtype


def result_type(*operands: Any) -> dtypes.dtype:
    """torch.result_type over tensors and python numbers."""
    groups: list[dtypes.dtype | None] = [None, None, None]
    for v in operands:
        if isinstance(v, Tensor):
            d, k = v._dtype, (0 if v._data.ndim else 1)
        else:
            d, k = _scalar_dtype(v), 2
        assert d is not None
        prev = groups[k]
        groups[k] = d if prev is None else promote_pair(prev, d)
    out: dtypes.dtype | None = None
    for g in groups:
        if g is None:
            continue
        d = g
        if out is None:
            out = d
        elif _category(d) > _category(out):
            # a lower-priority operand only wins by category, and then brings its own dtype,
            # except python numbers, which bring the default dtype of their category
            out = d
    assert out is not None
    return out


def is_operand(v: Any) -> bool:
    """Whether a binary op takes `v` as its other operand: a tensor or a number. Tensor's
    Python operators answer NotImplemented to anything else (a numpy array, a list, None), as
    torch's do (its argument parser's TypeError becomes NotImplemented), so Python asks the
    other operand: an ndarray then computes with numpy on `Tensor.__array__` and wraps the
    result with `__array_wrap__`."""
    return isinstance(v, (Tensor, np.generic, *PY_SCALARS))


def as_scalar(v: Any) -> Any:
    """A number operand as torch parses it: a python number as is, a numpy integer as an int,
    any other numpy scalar (bool_ and complex too) as a float: all weak, like python numbers."""
    c = v.__class__
    if c is float or c is int or c is bool:
        return v
    if isinstance(v, np.generic):
        if isinstance(v, np.integer):
            return int(v)
        return float(v.real) if isinstance(v, np.complexfloating) else float(v)
    if isinstance(v, PY_SCALARS):
        return v
    raise TypeError(f"argument 'other' must be Tensor, not {type_name(v)}")


def type_name(v: Any) -> str:
    """A value's type as torch's argument errors name it (`numpy.ndarray`, `list`)."""
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def operands(x: Tensor, y: Any, floating: bool = False) -> tuple[Any, Any, dtypes.dtype]:
    """The numpy operands of a binary op and the torch result dtype (slow path)."""
    if isinstance(y, Tensor):
        dt = result_type(x, y)
        if floating and not dt.is_floating_point:
            dt = state.default_dtype
        xd = x._data if x._dtype is dt else x._data.astype(dt.np)
        yd = y._data if y._dtype is dt else y._data.astype(dt.np)
        return xd, yd, dt
    y = as_scalar(y)
    dt = result_type(x, y)
    if floating and not dt.is_floating_point:
        dt = state.default_dtype
    xd = x._data if x._dtype is dt else x._data.astype(dt.np)
    return xd, dt.np.type(y), dt


def broadcast_error(a: tuple[int, ...], b: tuple[int, ...]) -> RuntimeError:
    """torch's infer_size error for shapes that do not broadcast."""
    n = max(len(a), len(b))
    for i in range(n - 1, -1, -1):
        da = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        db = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            return RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
    return RuntimeError(f"shapes {a} and {b} cannot be broadcast")


def safe(fn: Any, x: Any, y: Any) -> Any:
    """fn(x, y) with numpy's broadcast ValueError turned into torch's RuntimeError."""
    try:
        return fn(x, y)
    except ValueError:
        raise broadcast_error(np.shape(x), np.shape(y)) from None
