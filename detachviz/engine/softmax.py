"""float32 softmax and log_softmax, forward and backward, as torch's CPU kernels compute them
(SoftMaxKernel.cpp, AVX2: 8 float lanes), so their bits are torch's.

Over the last dim (a row at a time):
- softmax: `e = exp(x - max)` with Sleef's expf, `total` = e summed as `vec::reduce_all`
  adds (lane_sum), then `e * (1 / total)`.
- log_softmax: the same `total`, then `(x - max) - log(total)` with Sleef's logf.
- backward: softmax `(g - lane_sum(g * y)) * y`; log_softmax `fma(-exp(y), lane_sum(g), g)`
  (GCC fuses that multiply and subtract, not the other).

Over another dim (`inner` elements after it), each position of the outer x inner grid runs
down the dim on its own, its sums serial from 0:
- softmax divides by its sum (no reciprocal). Its loop (_walked) takes 8 positions at a time
  with Sleef's expf, the rest one at a time with the scalar `std::exp`: glibc's expf
  (engine/libm.py).
- log_softmax cuts inner into chunks (_vectorized): Sleef's expf but for each chunk's last
  `size % 8`; its logs are Sleef's.
- backward: softmax accumulates `g * y` with fused steps, `y * (g - sum)`; log_softmax as
  over the last dim, with glibc's expf where its loop is scalar.

Every function returns None for what it does not reproduce (other dtypes, empty or 0-d
inputs); the caller keeps its numpy formula for those."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine import kernels, libm
from detachviz.engine.fma import fma32
from detachviz.engine.transcendental import sleef_expf, sleef_logf

_F32 = np.dtype(np.float32)
_ONE = np.float32(1.0)
_LANES = 8  # Vectorized<float>::size() under AVX2


def _handled(*arrays: Any) -> bool:
    return all(a.dtype == _F32 and a.ndim and a.size for a in arrays)


def lane_sum(rows: np.ndarray, products: np.ndarray | None = None) -> np.ndarray:
    """Each row of a 2-D float32 array summed as `vec::reduce_all` adds it: 8 lane
    accumulators fed in order (a last partial vector only into its first lanes), then folded
    as the AVX2 shuffles fold them: ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)); rows shorter
    than 8 add serially. With `products` (map2_reduce_all of `rows * products`), each product
    is rounded before it is added, as torch's kernel computes it."""
    n = rows.shape[1]
    x = rows if products is None else rows * products
    if kernels.available and n and x.dtype == _F32:
        return kernels.lane_sum(x)
    if n < _LANES:
        acc = x[:, 0].copy()
        for i in range(1, n):
            acc += x[:, i]
        return acc
    full = n - n % _LANES
    acc = x[:, :_LANES].copy()
    for d in range(_LANES, full, _LANES):
        acc += x[:, d : d + _LANES]
    if full < n:
        acc[:, : n - full] += x[:, full:]
    half = acc[:, :4] + acc[:, 4:]
    return (half[:, 0] + half[:, 2]) + (half[:, 1] + half[:, 3])


def _rows(a: np.ndarray, axis: int) -> tuple[np.ndarray, tuple[int, int, int]]:
    """a as (outer, dim, inner), C-contiguous (torch's kernels read a contiguous input)."""
    shape = a.shape
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1 :])
    return np.ascontiguousarray(a).reshape(outer, shape[axis], inner), (outer, shape[axis], inner)


def forward(x: np.ndarray, axis: int, log: bool) -> np.ndarray | None:
    """torch's softmax (log=False) or log_softmax of float32 x over `axis`; None otherwise."""
    if not _handled(x):
        return None
    if axis == x.ndim - 1 and kernels.available:  # (no numpy call: no errstate to enter)
        return kernels.softmax_rows(x, log)  # the same steps, compiled
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if axis == x.ndim - 1:
            rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
            shifted = rows - np.maximum.reduce(rows, axis=1, keepdims=True)
            e = sleef_expf(shifted)
            total = lane_sum(e)
            if log:
                out = shifted - sleef_logf(total)[:, None]
            else:
                out = e * (_ONE / total)[:, None]
            return out.reshape(x.shape)
        cube, (outer, dim, inner) = _rows(x, axis)
        shifted = cube - np.maximum.reduce(cube, axis=1, keepdims=True)
        vec = _vectorized(inner, dim) if log else _walked(outer, inner)
        e = _exp(shifted, vec)
        total = _serial_sum(e)
        if log:
            out = shifted - sleef_logf(total)[:, None, :]
        else:
            out = e / total[:, None, :]
        return out.reshape(x.shape)


def backward(g: np.ndarray, y: np.ndarray, axis: int, log: bool) -> np.ndarray | None:
    """torch's _softmax_backward_data (log=False) or _log_softmax_backward_data of float32
    grad g and output y over `axis`; None otherwise."""
    if not _handled(g, y) or g.shape != y.shape:
        return None
    if axis == y.ndim - 1 and kernels.available:
        return kernels.softmax_back_rows(g, y, log)  # the same steps, compiled
    with np.errstate(over="ignore", invalid="ignore"):
        if axis == y.ndim - 1:
            n = y.shape[-1]
            gr = np.ascontiguousarray(g).reshape(-1, n)
            yr = np.ascontiguousarray(y).reshape(-1, n)
            if log:
                out = fma32(-sleef_expf(yr), lane_sum(gr)[:, None], gr)
            else:
                out = (gr - lane_sum(gr, yr)[:, None]) * yr
            return out.reshape(y.shape)
        gc, _ = _rows(g, axis)
        yc, (_, dim, inner) = _rows(y, axis)
        if log:
            out = fma32(-_exp(yc, _vectorized(inner, dim)), _serial_sum(gc)[:, None, :], gc)
        else:
            total = gc[:, 0, :] * yc[:, 0, :]
            for d in range(1, dim):
                total = fma32(gc[:, d, :], yc[:, d, :], total)
            out = yc * (gc - total[:, None, :])
        return out.reshape(y.shape)


def _serial_sum(cube: np.ndarray) -> np.ndarray:
    """(outer, dim, inner) summed over dim in order, from 0, one position at a time."""
    total = cube[:, 0, :].copy()
    for d in range(1, cube.shape[1]):
        total += cube[:, d, :]
    return total


def _exp(x: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """Sleef's expf where `vec` (broadcast over x) is True, glibc's expf elsewhere."""
    vec = np.broadcast_to(vec, x.shape)
    out = np.empty_like(x)
    if vec.any():
        out[vec] = sleef_expf(x[vec])
    rest = ~vec
    if rest.any():
        out[rest] = libm.expf(x[rest])
    return out


def _vectorized(inner: int, dim: int) -> np.ndarray:
    """Which inner positions torch's non-last-dim log_softmax kernels (forward and backward)
    compute 8 at a time: inner is cut into chunks of 128 KB / dim (a multiple of 8), and each
    chunk is vectorised but for its last `size % 8`, which its scalar loop does."""
    vec = np.zeros((1, 1, inner), dtype=bool)
    chunk = max(128 * 1024 // dim // 4, _LANES) // _LANES * _LANES
    for lo in range(0, inner, chunk):
        size = min(chunk, inner - lo)
        vec[..., lo : lo + size - size % _LANES] = True
    return vec


def _walked(outer: int, inner: int) -> np.ndarray:
    """Which (outer, 1, inner) positions torch's non-last-dim softmax computes 8 at a time. Its
    parallel_for (grain 0) cuts the flat outer x inner positions into one range per intra-op
    thread; each range is walked 8 at a time while the 8 stay in one row and in the range; the
    rest of a row, or of the range when fewer than 8 are left in it, one at a time."""
    from detachviz.engine.ranges import THREADS

    vec = np.zeros((outer, 1, inner), dtype=bool)
    flat = vec.reshape(-1)
    n = outer * inner
    size = -(-n // max(THREADS, 1))
    for begin in range(0, n, size):
        end = min(begin + size, n)
        idx = begin
        while idx < end:
            row_end = (idx // inner + 1) * inner
            blocks = (min(end, row_end) - idx) // _LANES
            flat[idx : idx + blocks * _LANES] = True
            idx += blocks * _LANES
            if idx + _LANES > end:
                break  # the range's last few: one at a time, whichever rows they are in
            idx = row_end  # the row's last few
    return vec
