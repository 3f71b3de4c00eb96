"""Tensor factories: torch.tensor (with its copy-construct warning), ones/zeros/full/arange/
linspace/eye, *_like, from_numpy, and the legacy constructors (random ones: sampling.py)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import errors, ranges, state, trace
from detachviz.engine.device import place
from detachviz.engine.ops.unary import clone_np
from detachviz.engine.tensor import Tensor, init_tensor, wrap


def leaf(data: np.ndarray, dtype: dtypes.dtype, requires_grad: bool) -> Tensor:
    """A factory's result: a new leaf over `data` (requires_grad only for a float dtype)."""
    t = object.__new__(Tensor)
    init_tensor(t, data, dtype)
    if requires_grad:
        if not dtype.is_floating_point:
            raise RuntimeError(errors.INT_REQUIRES_GRAD_FACTORY)
        t._requires_grad = True
    return t


def rebuild(data: np.ndarray, requires_grad: bool, cls: type[Tensor] | None = None) -> Tensor:
    """What a pickled tensor unpickles to: a leaf over `data` (its values, dtype and layout
    as saved), requiring grad as the original did — torch pickles a non-leaf as a leaf too.
    `cls` is a Tensor subclass to restore; a plain Tensor is not pickled by reference, since
    its class is spelled `torch.Tensor`, which names real torch wherever that is installed."""
    t = object.__new__(cls or Tensor)
    init_tensor(t, data, dtypes.BY_NP[data.dtype])
    t._requires_grad = requires_grad
    return t


def sizes(size: tuple[Any, ...]) -> tuple[int, ...]:
    """A factory's `*size` arguments as ints: `f(2, 3)`, `f((2, 3))`, `f([2, 3])`."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out: list[int] = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)):
            raise TypeError(
                f"ones(): argument 'size' (position 1) must be tuple of ints, but found element "
                f"of type {type(s).__name__} at pos {len(out)}"
            )
        out.append(int(s))
    return tuple(out)


def _infer(data: Any) -> tuple[np.ndarray, dtypes.dtype]:
    """numpy values and torch's inferred dtype for python/numpy data."""
    if isinstance(data, np.ndarray):
        return data, dtypes.from_numpy(data.dtype)
    if isinstance(data, np.generic):
        arr = np.asarray(data)
        return arr, dtypes.from_numpy(arr.dtype)
    try:
        arr = np.array(_unwrap(data))
    except ValueError:
        raise _ragged_error(data) from None
    k = arr.dtype.kind
    if k == "f":
        return arr, state.default_dtype
    if k in "iu":
        return arr, dtypes.int64
    if k == "b":
        return arr, dtypes.bool_
    if arr.size == 0 and arr.dtype == np.float64:
        return arr, state.default_dtype
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _ragged_error(data: Any) -> ValueError:
    """torch's error for nested lists of unequal lengths."""
    level = [data]
    dim = 0
    while level:
        seqs = [x for x in level if isinstance(x, (list, tuple))]
        if not seqs:
            break
        want = len(seqs[0])
        for x in level:
            got = len(x) if isinstance(x, (list, tuple)) else None
            if got != want:
                if got is None:
                    return ValueError(
                        f"expected sequence of length {want} at dim {dim} (got {type(x).__name__})"
                    )
                return ValueError(f"expected sequence of length {want} at dim {dim} (got {got})")
        level = [y for x in seqs for y in x]
        dim += 1
    return ValueError("could not build a tensor from ragged data")


def _unwrap(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _copy_construct(
    data: Any,
    dtype: dtypes.dtype | None,
    requires_grad: bool,
    warn_name: str,
    op_name: str,
    default_dtype: dtypes.dtype | None = None,
) -> Tensor:
    if isinstance(data, Tensor):
        warnings.warn(errors.COPY_CONSTRUCT_WARNING.format(warn_name), UserWarning, stacklevel=3)
        dt = dtype or data._dtype
        # NOTE: torch copies a tensor as clone() does: a dense layout is kept, an expanded
        # (overlapping) one becomes contiguous
        out = leaf(clone_np(data._data).astype(dt.np, copy=False), dt, requires_grad)
        if trace.RECORDER is not None:
            trace.RECORDER.record(op_name, (data,), (out,), cut="copy")
        return out
    arr, dt = _infer(data)
    if dtype is not None:
        dt = dtype
    elif default_dtype is not None:
        dt = default_dtype
    return leaf(np.array(arr, dtype=dt.np, copy=True), dt, requires_grad)


def tensor(
    data: Any,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """torch.tensor: always copies; a Tensor argument warns and gives a leaf copy."""
    place(device)
    return _copy_construct(data, dtype, requires_grad, "torch.tensor", "tensor")


def as_tensor(data: Any, dtype: dtypes.dtype | None = None, device: Any = None) -> Tensor:
    place(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data._dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtype.np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with `array` (float64 stays float64)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dt = dtypes.from_numpy(array.dtype)
    t = object.__new__(Tensor)
    init_tensor(t, array, dt)
    return t


def _factory(fill: Any) -> Any:
    def make(
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        out: Any = None,
        pin_memory: bool = False,
        memory_format: Any = None,
        generator: Any = None,
    ) -> Tensor:
        place(device)
        dt = dtype or state.default_dtype
        return leaf(fill(sizes(size), dt.np), dt, requires_grad)

    return make


ones = _factory(lambda s, d: np.ones(s, dtype=d))
zeros = _factory(lambda s, d: np.zeros(s, dtype=d))
empty = _factory(lambda s, d: np.zeros(s, dtype=d))  # NOTE: zeros, so runs stay deterministic


def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    place(device)
    if dtype is None:
        dtype = _infer(fill_value)[1] if not isinstance(fill_value, Tensor) else fill_value._dtype
    return leaf(np.full(sizes((size,)), fill_value, dtype=dtype.np), dtype, requires_grad)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    place(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = state.default_dtype if any(isinstance(v, float) for v in vals) else dtypes.int64
    if dtype.is_floating_point:
        n = max(0, math.ceil((float(vals[1]) - float(vals[0])) / float(vals[2])))
        data = ranges.arange(float(vals[0]), float(vals[2]), n, dtype.np)
    else:
        data = np.arange(vals[0], vals[1], vals[2], dtype=np.int64)
    return leaf(data.astype(dtype.np), dtype, requires_grad)


def linspace(
    start: float,
    end: float,
    steps: int,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    place(device)
    dt = dtype or state.default_dtype
    if not dt.is_floating_point:
        return leaf(np.linspace(start, end, steps).astype(dt.np), dt, requires_grad)
    return leaf(ranges.linspace(start, end, steps, dt.np), dt, requires_grad)


def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    place(device)
    dt = dtype or state.default_dtype
    return leaf(ranges.logspace(start, end, steps, base, dt.np), dt, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    place(device)
    dt = dtype or state.default_dtype
    return leaf(np.eye(n, m, dtype=dt.np), dt, requires_grad)


def _like(fill: Any) -> Any:
    def make(
        x: Tensor,
        *args: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: bool = False,
        memory_format: Any = None,
        layout: Any = None,
    ) -> Tensor:
        place(device)
        dt = dtype or x._dtype
        return leaf(fill(x._data.shape, dt.np, *args), dt, requires_grad)

    return make


zeros_like = _like(lambda s, d: np.zeros(s, dtype=d))
ones_like = _like(lambda s, d: np.ones(s, dtype=d))
empty_like = _like(lambda s, d: np.zeros(s, dtype=d))
full_like = _like(lambda s, d, v: np.full(s, v, dtype=d))


def legacy_new(
    cls: type, dtype: dtypes.dtype, args: Sequence[Any], kwargs: dict[str, Any]
) -> Tensor:
    """torch.Tensor(...) / torch.FloatTensor(...): from data, from sizes, or empty."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        data = args[0]
        if isinstance(data, Tensor):
            return data
        arr = np.array(_unwrap(data), dtype=dtype.np)
    elif args:
        arr = np.zeros(sizes(tuple(args)), dtype=dtype.np)
    else:
        arr = np.zeros((0,), dtype=dtype.np)
    t: Any = object.__new__(cls)
    init_tensor(t, arr, dtype)
    return t


def legacy_type(name: str, dt: dtypes.dtype) -> type:
    """A legacy constructor class (`torch.FloatTensor`): calling it builds a Tensor of `dt`;
    `isinstance(t, torch.FloatTensor)` checks the dtype."""

    class _Meta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, Tensor) and obj._dtype is dt

        def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
            return legacy_new(Tensor, dt, args, kwargs)

    return _Meta(name, (), {"_legacy_dtype": dt, "dtype": dt})


__all__ = ["tensor", "ones", "zeros"]


# Tensor.new_tensor / new_zeros / new_ones / new_full / new_empty (engine/methods.py)
def new_tensor(x: Tensor, data: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _copy_construct(
        data,
        dtype or x._dtype,
        requires_grad,
        "tensor.new_tensor",
        "new_tensor",
        default_dtype=dtype or x._dtype,
    )


def new_full(x: Tensor, size: Any, value: Any, dtype: Any, requires_grad: bool) -> Tensor:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    dt = dtype or x._dtype
    t = wrap(np.full(size, value, dtype=dt.np), dt)
    if requires_grad:
        t.requires_grad_(True)
    return t
