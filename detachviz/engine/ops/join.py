"""Joining and selecting ops: cat/concat, stack, where and masked_fill, with their backward
nodes (CatBackward0, StackBackward0, WhereBackward0, MaskedFillBackward0/1) and JVP rules.

cat and stack take any number of inputs, so their backward is a `_custom` function (one
gradient per input: a slice or a select of `g`, written with indexing so it runs on numpy
arrays and, for create_graph, on Tensors) and their JVP a whole-op function.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import (
    apply,
    inplace,
)
from detachviz.engine.node import Node, node_class, set_jvp
from detachviz.engine.promote import promote_pair, result_type
from detachviz.engine.rules import install_kernels
from detachviz.engine.tensor import Tensor


def _sizes_str(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _dim(dim: Any, nd: int) -> int:
    d = operator.index(dim)
    if not -max(nd, 1) <= d < max(nd, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, "
            f"{max(nd, 1) - 1}], but got {d})"
        )
    return d % max(nd, 1)


def _tensors(name: str, tensors: Any) -> tuple[Tensor, ...]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    if not tensors:
        raise ValueError(f"torch.{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return tuple(tensors)


def _common_dtype(tensors: tuple[Tensor, ...]) -> dtypes.dtype:
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        dt = promote_pair(dt, t._dtype)
    return dt


# --------------------------------------------------------------------------------------------
# cat
# --------------------------------------------------------------------------------------------
def _skipped(shape: tuple[int, ...], nd: int) -> bool:
    # NOTE: torch still accepts (and skips) legacy 1-D empty tensors next to higher-rank ones
    return shape == (0,) and nd != 1


def _cat_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    dim, sizes = node._attrs
    nd = max(len(s) for s in sizes)
    out: list[Any] = []
    start = 0
    for (fn, _), shape in zip(node.next_functions, sizes):
        if _skipped(shape, nd):
            out.append(None)
            continue
        n = shape[dim]
        out.append(None if fn is None else g[(slice(None),) * dim + (slice(start, start + n),)])
        start += n
    return out


def _cat_jvp(tans: list[Any], p: tuple[Any, ...], out: np.ndarray, a: Any) -> Any:
    nd = out.ndim
    parts = [
        np.zeros(np.shape(x), out.dtype) if t is None else t
        for t, x in zip(tans, p)
        if not _skipped(np.shape(x), nd)
    ]
    return np.concatenate(parts, axis=a.dim)


# attrs are (dim, sizes); torch exposes only `_saved_dim`
CAT = node_class("CatBackward0", (), attrs=("dim",), custom=_cat_backward)
set_jvp(CAT, _cat_jvp)


def cat(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    ts = _tensors("cat", tensors)
    nd = max(t._data.ndim for t in ts)
    real = [(i, t) for i, t in enumerate(ts) if not _skipped(t._data.shape, nd)]
    if not real:
        real = [(0, ts[0])]
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _dim(dim, nd)
    shape0 = real[0][1]._data.shape
    for i, t in real:
        s = t._data.shape
        if len(s) != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {len(s)}"
            )
        for k in range(nd):
            if k != d and s[k] != shape0[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{shape0[k]} but got size {s[k]} for tensor number {i} in the list."
                )
    dt = _common_dtype(ts)
    data = np.concatenate([t._data.astype(dt.np, copy=False) for _, t in real], axis=d)
    sizes = tuple(t._data.shape for t in ts)
    return apply(CAT, "cat", ts, data, dt, (d, sizes))


# --------------------------------------------------------------------------------------------
# stack
# --------------------------------------------------------------------------------------------
def _stack_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    dim = node._attrs[0]
    pre = (slice(None),) * dim
    return [None if fn is None else g[pre + (i,)] for i, (fn, _) in enumerate(node.next_functions)]


def _stack_jvp(tans: list[Any], p: tuple[Any, ...], out: np.ndarray, a: Any) -> Any:
    parts = [np.zeros(np.shape(x), out.dtype) if t is None else t for t, x in zip(tans, p)]
    return np.stack(parts, axis=a.dim)


STACK = node_class("StackBackward0", (), attrs=("dim",), custom=_stack_backward)
set_jvp(STACK, _stack_jvp)


def stack(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    ts = _tensors("stack", tensors)
    shape0 = ts[0]._data.shape
    for i, t in enumerate(ts):
        if t._data.shape != shape0:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {_sizes_str(shape0)} at "
                f"entry 0 and {_sizes_str(t._data.shape)} at entry {i}"
            )
    d = _dim(dim, len(shape0) + 1)
    dt = _common_dtype(ts)
    data = np.stack([t._data.astype(dt.np, copy=False) for t in ts], axis=d)
    return apply(STACK, "stack", ts, data, dt, (d,))


# --------------------------------------------------------------------------------------------
# where
# --------------------------------------------------------------------------------------------
WHERE = node_class(
    "WhereBackward0",
    (
        lambda k, g, s, a: k.where0(a.condition._data, g),
        lambda k, g, s, a: k.zero_where(a.condition._data, g),
    ),
    attrs=("condition",),
)
set_jvp(
    WHERE,
    (
        lambda t, p, o, a: np.where(a.condition._data, t, 0),
        lambda t, p, o, a: np.where(a.condition._data, 0, t),
    ),
)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """torch.where(cond, x, y); torch.where(cond) is cond.nonzero(as_tuple=True)."""
    if input is None and other is None:
        return tuple(
            apply(None, "nonzero", (condition,), np.asarray(i, np.int64), dtypes.int64)
            for i in np.nonzero(condition._data)
        )
    if condition._dtype is not dtypes.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype.legacy.replace('Tensor', '')}"
        )
    dt = result_type(input, other)
    xd = input._data if isinstance(input, Tensor) else input
    yd = other._data if isinstance(other, Tensor) else other
    data = np.where(condition._data, xd, yd).astype(dt.np, copy=False)
    return apply(WHERE, "where", (input, other), data, dt, (condition,))


install_kernels(where=where)


# --------------------------------------------------------------------------------------------
# masked_fill / masked_fill_ (value a number: MaskedFillBackward0; a 0-dim tensor: ...1)
# --------------------------------------------------------------------------------------------
MASKED_FILL0 = node_class(
    "MaskedFillBackward0", (lambda k, g, s, a: k.where0(~a.mask._data, g),), attrs=("mask",)
)
set_jvp(MASKED_FILL0, (lambda t, p, o, a: np.where(a.mask._data, 0, t),))
MASKED_FILL1 = node_class(
    "MaskedFillBackward1",
    (
        lambda k, g, s, a: k.where0(~a.mask._data, g),
        lambda k, g, s, a: k.reshape(k.sum_to(k.where0(a.mask._data, g), ()), ()),
    ),
    attrs=("mask",),
)
set_jvp(
    MASKED_FILL1,
    (
        lambda t, p, o, a: np.where(a.mask._data, 0, t),
        lambda t, p, o, a: np.where(a.mask._data, t, 0),
    ),
)


def _mask_value(x: Tensor, mask: Tensor, value: Any) -> tuple[Any, Any, type[Node]]:
    if not isinstance(mask, Tensor) or mask._dtype is not dtypes.bool_:
        got = mask._dtype.name.replace("float32", "float") if isinstance(mask, Tensor) else mask
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {got}"
        )
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return value._data, (value,), MASKED_FILL1
    return value, (), MASKED_FILL0


def masked_fill(x: Tensor, mask: Tensor, value: Any) -> Tensor:
    v, others, cls = _mask_value(x, mask, value)
    data = np.where(mask._data, np.asarray(v).astype(x._data.dtype), x._data)
    data = np.array(np.broadcast_to(data, x._data.shape))
    return apply(cls, "masked_fill", (x, *others), data, x._dtype, (mask,))


def masked_fill_(x: Tensor, mask: Tensor, value: Any) -> Tensor:
    v, others, cls = _mask_value(x, mask, value)
    return inplace(x, "masked_fill_", cls, lambda a: np.where(mask._data, v, a), others, (mask,))
