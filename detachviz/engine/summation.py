"""torch's float sum order for a whole-tensor reduction (SumKernel.cpp's cascade_sum on AVX2):
the same additions in the same order, so `x.sum()` and `x.mean()` round as torch's do.

torch sums a contiguous float tensor as 8 float32 (4 float64) lanes, each lane split four
ways (instruction-level parallelism), each of those 32 (16) accumulators a cascade: blocks of
2**p values summed in order, block sums summed in groups of 2**p, and so on, four levels deep
(p = max(4, ceil(log2(rows)) // 4)); then the four ILP partials fold into the first, the
scalar tail adds in order, and the lanes add in order. Above 32768 elements torch splits the
work across threads and adds per-thread partials; that path is not emulated (`exact` says
when the order is torch's)."""

from __future__ import annotations

import numpy as np

_GRAIN = 32768  # at::internal::GRAIN_SIZE: below it torch reduces in one pass
_LEVELS = 4
_ILP = 4


def exact(n: int) -> bool:
    """Whether `total` adds n elements in torch's order (one pass, no thread split)."""
    return n <= _GRAIN


def _in_order(x: np.ndarray) -> np.ndarray:
    """Sum over axis 0 one row after another (numpy reduces a non-inner axis in order)."""
    if x.shape[0] == 0:
        return np.zeros(x.shape[1:], dtype=x.dtype)
    return np.add.reduce(x, axis=0)


def _cascade(rows: np.ndarray) -> np.ndarray:
    """multi_row_sum: the cascade over axis 0 of `rows` (size, k), for k accumulators."""
    size, k = rows.shape
    power = max(4, (int(size) - 1).bit_length() // _LEVELS) if size > 1 else 4
    step = 1 << power
    level = rows
    partial = []  # what each level holds when the data ends: it is not yet carried upward
    for _ in range(_LEVELS - 1):
        full = level.shape[0] // step
        partial.append(_in_order(level[full * step :]))
        level = _in_order(level[: full * step].reshape(full, step, k).transpose(1, 0, 2))
    acc = partial[0]
    for part in (*partial[1:], _in_order(level)):
        acc = acc + part
    return acc


def _row(x: np.ndarray) -> np.ndarray:
    """row_sum: x (size, lanes) split four ways, cascaded, folded back into one lane vector."""
    size, lanes = x.shape
    quads = size // _ILP
    part = _cascade(x[: quads * _ILP].reshape(quads, _ILP * lanes)).reshape(_ILP, lanes)
    acc = part[0]
    for r in x[quads * _ILP :]:
        acc = acc + r
    for r in part[1:]:
        acc = acc + r
    return acc


def total(x: np.ndarray) -> np.generic:
    """The sum of all of x's float32/float64 values, added as torch adds them."""
    flat = np.ascontiguousarray(x).reshape(-1)
    dt = flat.dtype
    lanes = 32 // dt.itemsize
    n = flat.size
    if n < lanes:  # torch's scalar path: the same split and cascade on single values
        return dt.type(_row(flat.reshape(n, 1))[0]) if n else dt.type(0)
    vectors = n // lanes
    lane_sums = _row(flat[: vectors * lanes].reshape(vectors, lanes))
    acc = dt.type(0)
    for v in flat[vectors * lanes :]:
        acc = dt.type(acc + v)
    for v in lane_sums:
        acc = dt.type(acc + v)
    return acc
