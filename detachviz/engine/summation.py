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

import math
from typing import Any

import numpy as np

from detachviz.engine import kernels

_GRAIN = 32768  # at::internal::GRAIN_SIZE: below it torch reduces in one pass
_LEVELS = 4
_ILP = 4


def exact(n: int) -> bool:
    """Whether `total` adds n elements in torch's order (one pass, no thread split)."""
    return n <= _GRAIN


def _cascade(rows: np.ndarray) -> np.ndarray:
    """multi_row_sum: the cascade over axis 0 of `rows` (size, k), for k accumulators."""
    size, k = rows.shape
    power = max(4, (int(size) - 1).bit_length() // _LEVELS) if size > 1 else 4
    step = 1 << power
    level = rows
    acc = None  # the sum, in torch's order, of what each level holds when the data ends
    for _ in range(_LEVELS - 1):
        full = level.shape[0] // step
        rest = level[full * step :]
        if rest.shape[0]:
            part = np.add.reduce(rest, axis=0)
            acc = part if acc is None else acc + part
        if not full:
            return acc if acc is not None else np.zeros(k, dtype=rows.dtype)
        # NOTE: reducing the middle axis adds the rows in order (no pairwise summation)
        level = np.add.reduce(level[: full * step].reshape(full, step, k), axis=1)
    top = np.add.reduce(level, axis=0)
    return top if acc is None else acc + top


def _row(x: np.ndarray) -> np.ndarray:
    """row_sum: x (size, lanes) split four ways, cascaded, folded back into one lane vector."""
    size, lanes = x.shape
    quads = size // _ILP
    if quads:
        part = _cascade(x[: quads * _ILP].reshape(quads, _ILP * lanes)).reshape(_ILP, lanes)
    else:  # fewer rows than partials (a small expand's backward): the partials are all 0
        part = np.zeros((_ILP, lanes), x.dtype)
    # the leftover rows go into the first partial, then the other partials, all in order
    rest = np.concatenate([part[:1], x[quads * _ILP :], part[1:]])
    return np.add.accumulate(rest, axis=0)[-1]


def total(x: np.ndarray) -> np.generic:
    """The sum of all of x's float32/float64 values, added as torch adds them."""
    flat = np.ascontiguousarray(x).reshape(-1)
    dt = flat.dtype
    if kernels.available:
        return dt.type(kernels.total(flat))  # the same additions, compiled
    lanes = 32 // dt.itemsize
    n = flat.size
    if n < lanes:  # torch's scalar path: the same split and cascade on single values
        return dt.type(_row(flat.reshape(n, 1))[0]) if n else dt.type(0)
    vectors = n // lanes
    lane_sums = _row(flat[: vectors * lanes].reshape(vectors, lanes))
    # 0, then the scalar tail, then the lanes, one after another
    seq = np.concatenate([np.zeros(1, dtype=dt), flat[vectors * lanes :], lane_sums])
    return np.add.accumulate(seq)[-1]


def rows(x: np.ndarray) -> np.ndarray:
    """`total` of each row of a C-contiguous float32/float64 matrix x (rows, n): torch's
    inner reduction adds every output's row as a whole-tensor sum adds its one row. All the
    rows go through numpy at once (the cascade works column by column)."""
    count, n = x.shape
    dt = x.dtype
    if kernels.available and count:
        out = np.empty(count, dtype=dt)
        kernels.rows(x, out)  # the same additions, compiled
        return out
    lanes = 32 // dt.itemsize
    if n < lanes:  # the scalar path, one column per row
        return _row(np.ascontiguousarray(x.T)) if n else np.zeros(count, dtype=dt)
    vectors = n // lanes
    body = x[:, : vectors * lanes].reshape(count, vectors, lanes).transpose(1, 0, 2)
    lane_sums = _row(body.reshape(vectors, count * lanes)).reshape(count, lanes)
    seq = np.concatenate([np.zeros((count, 1), dtype=dt), x[:, vectors * lanes :], lane_sums], 1)
    return np.add.accumulate(seq, axis=1)[:, -1]


def over(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray | None:
    """x summed over `axes` (sorted, non-negative, one adjacent run of dims) in torch's
    order, shaped as without keepdim; None where that order is not known here: not
    float32/float64, not C-contiguous, axes not adjacent, or large enough for torch to split
    the work across threads. torch merges the run into one dim of size `r` between an outer
    size and an inner size `c`: with c == 1 every output's row is a `total` (`rows`), else
    each outer slice is a reduction over leading dims (`columns`)."""
    if x.dtype.kind != "f" or x.dtype.itemsize < 4 or not x.flags.c_contiguous:
        return None
    if not axes or x.size >= _GRAIN or axes[-1] - axes[0] != len(axes) - 1:
        return None
    shape = x.shape
    kept = shape[: axes[0]] + shape[axes[-1] + 1 :]
    outer, r = math.prod(shape[: axes[0]]), math.prod(shape[axes[0] : axes[-1] + 1])
    c = math.prod(shape[axes[-1] + 1 :])
    if r == 0 or outer * c == 0:
        return None
    if c == 1:
        return rows(x.reshape(outer, r)).reshape(kept)
    # each outer slice is `columns` of (r, c): all of them at once, side by side
    return columns(x.reshape(outer, r, c).transpose(1, 0, 2)).reshape(kept)


def sum_all(x: np.ndarray) -> Any:
    """A whole-tensor sum: float32/float64 ones in torch's addition order where `exact`
    says that order is torch's, any other in numpy's."""
    if x.dtype.kind == "f" and x.dtype.itemsize >= 4 and exact(x.size):
        return total(x)
    return x.sum()


def columns(x: np.ndarray) -> np.ndarray:
    """The sums down axis 0 of a float32/float64 array x (rows, ..., cols), added as torch
    adds a reduction over leading dims (SumKernel.cpp, one thread), each middle index its own
    (rows, cols) matrix: with a vector of columns or more, blocks of four vectors of columns
    take the cascade over all rows and the columns left over take `row_sum` (rows split four
    ways); with fewer columns, groups of four columns take the cascade and the rest
    `row_sum`. Per column, the vector and scalar forms add in the same order, so numpy
    computes many columns (and matrices) at once."""
    count, cols = x.shape[0], x.shape[-1]
    mid = x.shape[1:-1]
    if kernels.available and count and x.ndim == 3 and x.strides[2] == x.itemsize:
        out = np.empty(x.shape[1:], dtype=x.dtype)
        kernels.columns(x, out)  # the same additions, compiled
        return out
    lanes = 32 // x.dtype.itemsize
    block = _ILP * lanes if cols >= lanes else _ILP
    whole = cols // block * block
    out = np.empty(x.shape[1:], dtype=x.dtype)
    if count == 0:
        out[...] = 0
        return out
    if whole:
        out[..., :whole] = _cascade(x[..., :whole].reshape(count, -1)).reshape(*mid, whole)
    if whole < cols:
        out[..., whole:] = _row(x[..., whole:].reshape(count, -1)).reshape(*mid, cols - whole)
    return out


_NLL_LEVELS = 8  # nll_loss's cascade_sum_num_levels
_CASCADED = (np.dtype(np.float32), np.dtype(np.float64))  # the compiled cascade's dtypes


def nll_cascade(values: Any, where: np.ndarray, n: int) -> np.ndarray:
    """nll_loss's reduction sum (LossNLL.cpp, nll_loss_out_frame / nll_loss2d) of n samples'
    `values` (any shape, read in C order) at the kept positions `where`. Eight
    partial sums: each term adds to the first; after a kept sample b whose low
    p*(j+1) bits are 0 (p = max(4, ceil(log2(n)) // 8)), partial j adds into j+1 and
    restarts from 0, up the levels while that holds; at the end the partials add in order
    from 0. Here each level is summed a whole segment (between two such samples) at a time;
    once a level hands up at most one value, that value is the next partial (the levels
    above it would only pass it on)."""
    power = max(4, math.ceil(math.log2(n)) // _NLL_LEVELS) if n > 1 else 4
    terms = np.reshape(values, -1)[where]
    dt = terms.dtype
    if kernels.available and dt in _CASCADED and where.dtype == np.int64 and terms.size:
        return np.asarray(kernels.nll_cascade(terms, where, power), dtype=dt)
    partials = []
    stream, times = terms, where
    for j in range(_NLL_LEVELS - 1):
        if stream.size <= 1:
            break
        ends = np.flatnonzero((times & (((1 << power) - 1) << (j * power))) == 0)
        tail = ends[-1] + 1 if ends.size else 0
        partials.append(_serial(stream[tail:]))
        stream, times = (_segment_sums(stream, ends) if ends.size else stream[:0]), times[ends]
    partials.append(_serial(stream))
    out = dt.type(0)
    for p in partials:
        out = dt.type(out + p)
    return np.asarray(out, dtype=dt)


def _serial(x: np.ndarray) -> Any:
    """x added in order from 0 (np.add.accumulate is sequential; + 0 turns an all -0 sum
    into the +0 that starting from 0 gives, and changes nothing else)."""
    return np.add.accumulate(x)[-1] + x.dtype.type(0) if x.size else x.dtype.type(0)


def _segment_sums(x: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """x cut into segments ending (inclusive) at `ends`, each starting after the previous end,
    each added in order from 0 (as _serial; zero padding after a segment changes nothing)."""
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    covered = x[: ends[-1] + 1]
    rows = np.repeat(np.arange(ends.size), lengths)
    grid = np.zeros((ends.size, int(lengths.max())), dtype=x.dtype)
    grid[rows, np.arange(covered.size) - starts[rows]] = covered
    return np.add.accumulate(grid, axis=1)[:, -1] + x.dtype.type(0)
