"""Tensor printing: a numpy port of torch/_tensor_str.py, so `repr(tensor)` matches PyTorch's."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import state

PRINT_OPTS = state.print_options  # the one options object (engine/state.py)

# profile name -> (precision, threshold, edgeitems, linewidth), as torch.set_printoptions has them
_PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """torch.set_printoptions. NOTE: like torch, every call resets `sci_mode` (to None unless
    given), even when only another option is passed."""
    if profile is not None and profile in _PROFILES:
        (
            PRINT_OPTS.precision,
            PRINT_OPTS.threshold,
            PRINT_OPTS.edgeitems,
            PRINT_OPTS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """torch.get_printoptions: the current options as set_printoptions keyword arguments."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """torch.printoptions: set print options for the duration of a `with` block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Chooses one element format (int / fixed / scientific) and one width for a whole tensor."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            # NOTE: .tolist() gives Python ints/bools, whose str() is what torch prints.
            self.max_width = max([1, *(len(str(v)) for v in flat.tolist())])
            return
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return
        # torch converts |x| to double before min/max and the ratio test.
        abs64 = np.abs(nonzero_finite).astype(np.float64)
        lo, hi = abs64.min(), abs64.max()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        # NOTE: torch formats each element as the Python float of its value (a float32 0.1 is
        # 0.10000000149011612), which is exactly what ndarray.tolist() yields.
        py = nonzero_finite.tolist()
        p = PRINT_OPTS.precision
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in py)
        elif self.int_mode:
            # the trailing "." marks a float tensor whose values are all integers
            widths = (len(f"{v:.0f}") + 1 for v in py)
        else:
            widths = (len(f"{v:.{p}f}") for v in py)
        self.max_width = max(self.max_width, *widths)

    def width(self) -> int:
        return self.max_width

    def format(self, value: float | int | bool) -> str:
        if self.floating_dtype:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    # an element takes its width plus ", "
    element_length = fmt.width() + 2
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = (
            [fmt.format(v) for v in values[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in values[-edge:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter
) -> str:
    # NOTE: recursion here is over dimensions (depth = ndim), not over a graph.
    dim = values.ndim
    if dim == 0:
        return fmt.format(values.item())
    if dim == 1:
        return _vector_str(values, indent, summarize, fmt)
    edge = PRINT_OPTS.edgeitems
    n = values.shape[0]
    if summarize and n > 2 * edge:
        rows = [*range(edge), None, *range(n - edge, n)]
    else:
        rows = list(range(n))
    slices = [
        "..." if i is None else _tensor_str_with_formatter(values[i], indent + 1, summarize, fmt)
        for i in rows
    ]
    # blank lines between blocks grow with the rank: one newline per remaining dimension
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(values: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (torch's get_summarized_data), for the formatter."""
    dim = values.ndim
    edge = PRINT_OPTS.edgeitems
    if dim == 0:
        return values
    if dim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate((values[:edge], values[-edge:]))
        return values
    if not edge:
        return values[tuple(slice(0, 0) for _ in range(dim))]
    n = values.shape[0]
    rows = [*range(edge), *range(n - edge, n)] if n > 2 * edge else range(n)
    return np.stack([_summarized_data(values[i]) for i in rows])


def _tensor_str(values: np.ndarray, indent: int, floating: bool) -> str:
    if values.size == 0:
        return "[]"
    summarize = values.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized_data(values) if summarize else values, floating)
    return _tensor_str_with_formatter(values, indent, summarize, fmt)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    parts = [tensor_str]
    # NOTE: torch's arithmetic, off by two from the real line length; kept for identical wrapping
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _shape_str(shape: tuple[int, ...]) -> str:
    """str(tuple(shape)), as torch prints `size=(0, 3)`."""
    return str(tuple(int(d) for d in shape))


def format_tensor(
    array: np.ndarray,
    dtype: dtypes.dtype,
    *,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    tangent: np.ndarray | None = None,
    default_dtype: dtypes.dtype | None = None,
) -> str:
    """Exactly what PyTorch's `repr(tensor)` prints for a CPU strided tensor with these values.

    `grad_fn_name` (e.g. "MulBackward0") wins over `requires_grad`, as in torch. `tangent` is the
    forward-AD tangent's values (same dtype as the primal). `default_dtype` is what
    `torch.get_default_dtype()` returns; tensors of that dtype, int64 and bool print no dtype.
    """
    if default_dtype is None:
        default_dtype = state.default_dtype
    prefix = "tensor("
    indent = len(prefix)
    values = np.asarray(array).astype(dtype.np, copy=False)
    suffixes: list[str] = []
    if values.size == 0:
        # an empty tensor shows its shape unless it is (0,), and any dtype but the default
        # (even int64: there is no element to tell)
        if values.ndim != 1:
            suffixes.append("size=" + _shape_str(values.shape))
        if dtype is not default_dtype:
            suffixes.append(f"dtype={dtype!r}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + _shape_str(values.shape))
        if dtype not in (default_dtype, dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dtype!r}")
        tensor_str = _tensor_str(values, indent, dtype.is_floating_point)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append("tangent=" + _tangent_str(tangent, default_dtype))
    return _add_suffixes(prefix + tensor_str, suffixes, indent)


def _tangent_str(tangent: np.ndarray, default_dtype: dtypes.dtype) -> str:
    # NOTE: torch builds this with f"tangent={tangent}", and Tensor.__format__ turns a 0-d
    # tensor into its Python number first: a scalar tangent prints as `tangent=2.0`.
    tangent = np.asarray(tangent)
    if tangent.ndim == 0:
        return f"{tangent.item()}"
    return format_tensor(tangent, dtypes.from_numpy(tangent.dtype), default_dtype=default_dtype)
