"""Padding: constant_pad_nd (ConstantPadNdBackward0) and the reflection / replication pads
(ReflectionPad{1,2,3}DBackward0, ReplicationPad{1,2,3}DBackward0), as torch._C._nn.pad
dispatches them; the circular pad is composite in torch too (copies into slices).

A constant pad's gradient is the constant pad with the pads negated (a crop), so it is
differentiable for free. A reflection or replication pad is a gather along each padded dim
with an index map (`_index_map`); its gradient scatter-adds along the same maps, and the
gradient of that scatter (torch's `...BackwardBackward0`) is the pad again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine.function import apply
from detachviz.engine.node import Saved, node_class
from detachviz.engine.tensor import Tensor

Ints = tuple[int, ...]


# --------------------------------------------------------------------------------------------
# constant
# --------------------------------------------------------------------------------------------
def _pairs(pad: Ints, nd: int) -> list[tuple[int, int]]:
    """(left, right) per dim of an nd array; pad pairs start at the last dim, as torch's."""
    pairs = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        pairs[nd - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return pairs


def constant_pad_np(a: Any, pad: Ints, value: Any = 0) -> Any:
    pairs = _pairs(pad, a.ndim)
    crop = tuple(slice(-min(lo, 0), a.shape[d] + min(hi, 0)) for d, (lo, hi) in enumerate(pairs))
    a = a[crop]
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if not any(lo or hi for lo, hi in grow):
        return np.array(a)
    return np.pad(a, grow, constant_values=value)


def _constant_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    neg = tuple(-p for p in a.pad)
    if isinstance(g, Tensor):
        return constant_pad_nd(g, neg)
    return constant_pad_np(g, neg)


CONSTANT_PAD = node_class(
    "ConstantPadNdBackward0",
    (_constant_vjp,),
    attrs=("pad",),
    jvp=(lambda t, p, out, a: constant_pad_np(t, a.pad),),
)


def _check_length(pad: Any, ndim: int) -> None:
    """torch's checks of a pad list, whatever the mode."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {ndim}"
        )


def constant_pad_nd(x: Tensor, pad: Any, value: Any = 0) -> Tensor:
    """torch.constant_pad_nd: pads (left, right) pairs from the last dim; negative pads crop."""
    pad = tuple(int(p) for p in pad)
    xd = x._data
    _check_length(pad, xd.ndim)
    for d, (lo, hi) in enumerate(_pairs(pad, xd.ndim)):
        if xd.shape[d] + lo + hi < 0:
            raise RuntimeError(
                f"The input size {xd.shape[d]}, plus negative padding {lo} and {hi} resulted in "
                f"a negative output size, which is invalid. Check dimension {d} of your input."
            )
    data = constant_pad_np(xd, pad, value)
    return apply(CONSTANT_PAD, "constant_pad_nd", (x,), data.astype(xd.dtype), x._dtype, (pad,))


# --------------------------------------------------------------------------------------------
# reflection and replication
# --------------------------------------------------------------------------------------------
def _index_map(mode: str, n: int, lo: int, hi: int) -> Any:
    idx = np.arange(-lo, n + hi)
    if mode == "reflect":
        idx = np.abs(idx)
        return np.where(idx > n - 1, 2 * (n - 1) - idx, idx)
    return np.clip(idx, 0, n - 1)


def _maps(mode: str, shape: Ints, padding: Ints) -> list[tuple[int, Any]]:
    return [
        (d, _index_map(mode, shape[d], lo, hi))
        for d, (lo, hi) in enumerate(_pairs(padding, len(shape)))
        if lo or hi
    ]


def index_pad_np(a: Any, mode: str, padding: Ints) -> Any:
    for d, idx in _maps(mode, a.shape, padding):
        a = np.take(a, idx, axis=d)
    return np.ascontiguousarray(a)


def index_pad_back_np(g: Any, mode: str, padding: Ints, in_shape: Ints) -> Any:
    for d, idx in reversed(_maps(mode, in_shape, padding)):
        shape = list(g.shape)
        shape[d] = in_shape[d]
        out = np.zeros(shape, dtype=g.dtype)
        np.add.at(out, (slice(None),) * d + (idx,), g)
        g = out
    return g


_MODES = {"reflect": "Reflection", "replicate": "Replication"}
PAD_NODES: dict[tuple[str, int], Any] = {}
PAD_BACK_NODES: dict[tuple[str, int], Any] = {}


def _pad_vjp(mode: str) -> Any:
    def rule(k: Any, g: Any, s: Any, a: Any) -> Any:
        x = s[0]
        if isinstance(g, Tensor):
            return _pad_back(g, mode, a.padding, tuple(x.shape))
        return index_pad_back_np(g, mode, a.padding, x.shape)

    return rule


def _pad_back_vjp(mode: str) -> Any:
    def rule(k: Any, g: Any, s: Any, a: Any) -> Any:
        if isinstance(g, Tensor):
            return index_pad(g, mode, a.padding)
        return index_pad_np(g, mode, a.padding)

    return rule


for _mode, _word in _MODES.items():
    for _n in (1, 2, 3):
        PAD_NODES[_mode, _n] = node_class(
            f"{_word}Pad{_n}DBackward0",
            (_pad_vjp(_mode),),
            saved=(Saved("self", 0, (0,)),),
            attrs=("padding",),
            jvp=(lambda t, p, out, a, m=_mode: index_pad_np(t, m, a.padding),),
        )
        PAD_BACK_NODES[_mode, _n] = node_class(
            f"{_word}Pad{_n}DBackwardBackward0",
            (_pad_back_vjp(_mode),),
            attrs=("padding", "self_sym_sizes"),
            jvp=(lambda t, p, out, a, m=_mode: index_pad_back_np(t, m, a.padding, out.shape),),
        )


def _pad_back(g: Tensor, mode: str, padding: Ints, in_shape: Ints) -> Tensor:
    data = index_pad_back_np(g._data, mode, padding, in_shape)
    cls = PAD_BACK_NODES[mode, len(padding) // 2]
    return apply(cls, f"{mode}_pad_backward", (g,), data, g._dtype, (padding, in_shape))


_COMBOS = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def index_pad(x: Tensor, mode: str, padding: Any) -> Tensor:
    """torch's reflection_pad{1,2,3}d / replication_pad{1,2,3}d on a (batched or not) input."""
    padding = tuple(int(p) for p in padding)
    xd = x._data
    n = len(padding) // 2
    if len(padding) % 2 or n not in (1, 2, 3) or xd.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(padding)} is not supported for {xd.ndim}D input tensor.\n{_COMBOS}"
        )
    for d, (lo, hi) in enumerate(_pairs(padding, xd.ndim)):
        if not (lo or hi):
            continue
        size = xd.shape[d]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"{list(xd.shape)}"
            )
        if mode == "replicate" and size == 0:
            raise RuntimeError("input tensor must not be empty for replication padding")
        if lo < 0 or hi < 0:
            raise NotImplementedError("detachviz does not support negative reflection padding")
    data = index_pad_np(xd, mode, padding)
    return apply(PAD_NODES[mode, n], f"{mode}_pad{n}d", (x,), data, x._dtype, (padding,))


# --------------------------------------------------------------------------------------------
# circular
# --------------------------------------------------------------------------------------------
def circular_pad(x: Tensor, padding: Any) -> Tensor:
    """torch's _pad_circular, built as torch builds it from views and copies (so its graph is
    torch's chain of CopySlices / SliceBackward0): the input (cropped where a pad is negative)
    copied into the middle of a new tensor, then per padded dim, first to last, the left pad
    copied from the output's right end and the right pad from its left end."""
    padding = tuple(int(p) for p in padding)
    n = len(padding) // 2
    shape = tuple(x.shape)
    if len(padding) % 2 or n not in (1, 2, 3) or len(shape) not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(padding)} is not supported for {len(shape)}D input tensor.\n"
            f"{_COMBOS}"
        )
    first = len(shape) - n
    pads = [_pairs(padding, len(shape))[first + i] for i in range(n)]
    out_shape = list(shape)
    for i, (lo, hi) in enumerate(pads):
        size = shape[first + i]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[first + i] = size + lo + hi
        if out_shape[first + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension.")
    out = x.new_empty(tuple(out_shape))
    core_out, core_in = out, x
    for i, (lo, hi) in enumerate(pads):
        d = first + i
        core_out = core_out.narrow(d, max(lo, 0), out_shape[d] - max(lo, 0) - max(hi, 0))
        core_in = core_in.narrow(d, max(-lo, 0), shape[d] - max(-lo, 0) - max(-hi, 0))
    core_out.copy_(core_in)
    for i, (lo, hi) in enumerate(pads):
        d = first + i
        size = out_shape[d]
        if lo > 0:
            out.narrow(d, 0, lo).copy_(out.narrow(d, size - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(d, size - hi, hi).copy_(out.narrow(d, max(lo, 0), hi))
    return out


def pad(input: Tensor, pad: Any, mode: str = "constant", value: Any = None) -> Tensor:
    """torch.nn.functional.pad: 'constant' (value, default 0), 'reflect', 'replicate' or
    'circular'."""
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise AssertionError(f'Padding mode "{mode}" doesn\'t take in value argument')
    _check_length(pad, input.dim())
    if mode in _MODES:
        return index_pad(input, mode, pad)
    if mode == "circular":
        return circular_pad(input, pad)
    raise NotImplementedError(f"Unrecognised padding mode {mode}")
