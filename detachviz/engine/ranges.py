"""torch's range factories as its CPU kernels compute them: arange, linspace and logspace values
in numpy, rounded where torch rounds (RangeFactoriesKernel.cpp, RangeFactories.cpp)."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from detachviz.engine import libm
from detachviz.engine.fma import fma32, fma64

_GRAIN = 32768  # at::internal::GRAIN_SIZE: parallel_for's chunk floor
# NOTE: torch's intra-op thread count (its default: the machine's cores) decides where
# arange's chunks start for more than 32768 elements; each chunk restarts the vector blocks.
THREADS = os.cpu_count() or 1


def arange(start: float, step: float, n: int, np_dtype: Any) -> np.ndarray:
    """n float values of torch.arange: in float64 (torch's CPU accumulate type), blocks of one
    AVX2 vector start at `fma(step, idx, start)` rounded to the dtype and continue with
    `fma(j, step, base)`; the tail after the last pair of vectors is `fma(step, idx, start)`."""
    dt = np.dtype(np_dtype)
    lanes = 32 // dt.itemsize
    out = np.empty(n, dtype=dt)
    chunks = min(THREADS, max(1, math.ceil(n / _GRAIN)))
    size = math.ceil(n / chunks) if n else 0
    for lo in range(0, n, max(size, 1)):
        hi = min(lo + size, n)
        vec_end = lo + (hi - lo) // (2 * lanes) * (2 * lanes)
        heads = np.arange(lo, vec_end, lanes, dtype=np.float64)
        base = fma64(step, heads, start).astype(dt).astype(np.float64)
        lane = np.arange(lanes, dtype=np.float64)
        out[lo:vec_end] = fma64(lane[None, :], step, base[:, None]).astype(dt).reshape(-1)
        tail = np.arange(vec_end, hi, dtype=np.float64)
        out[vec_end:hi] = fma64(step, tail, start).astype(dt)
    return out


def linspace(start: float, end: float, steps: int, np_dtype: Any) -> np.ndarray:
    """torch.linspace in the dtype: step = (end - start) / (steps - 1); the first half counts up
    from start (`start + step*i`), the second half down from end (`end - step*(steps-1-i)`),
    each one fused multiply-add, so both ends are exact and the middle is not symmetric."""
    dt = np.dtype(np_dtype)
    s, e = dt.type(start), dt.type(end)
    if steps <= 1:
        return np.full(steps, s, dtype=dt)
    step = dt.type((e - s) / dt.type(steps - 1))
    half = steps // 2
    up = np.arange(half, dtype=dt)  # start + step*i for the first half ...
    down = np.arange(steps - half - 1, -1, -1, dtype=dt)  # ... end - step*(steps-1-i) after
    if dt == np.float32 and _exact_in_float64(s, e, step, steps):
        # NOTE: step*i (48 bits) plus an end (24 bits) is exact in float64 here, so rounding
        # that sum once to float32 is the fused result, without fma32's halfway checks
        first = (np.multiply(up, step, dtype=np.float64) + float(s)).astype(dt)
        second = (float(e) - np.multiply(down, step, dtype=np.float64)).astype(dt)
    else:
        fma = fma32 if dt == np.float32 else fma64
        first, second = fma(step, up, s), fma(-step, down, e)
    return np.concatenate([first, second])


def _exact_in_float64(s: np.float32, e: np.float32, step: np.float32, steps: int) -> bool:
    """Whether every `end +- step*i` needs at most 53 bits: from the largest magnitude
    involved down to the lowest bit of step (or of the ends)."""
    top = max(abs(float(s)), abs(float(e)), abs(float(step)) * steps)
    if top == 0 or step == 0:
        return True
    low = min(_lowest_bit(step), _lowest_bit(s), _lowest_bit(e))
    return math.frexp(top)[1] - low <= 52


def _lowest_bit(v: np.float32) -> int:
    """The exponent of v's least significant set bit (large for 0)."""
    if v == 0:
        return 10**6
    m, ex = math.frexp(float(v))
    bits = int(m * 2**24)
    return ex - 24 + ((bits & -bits).bit_length() - 1)


def logspace(start: float, end: float, steps: int, base: float, np_dtype: Any) -> np.ndarray:
    """torch.logspace: `pow(base, exponent)` in float64 with linspace's two halves for the
    exponent, computed without FMA (this kernel is built for the baseline CPU)."""
    dt = np.dtype(np_dtype)
    s, e = dt.type(start), dt.type(end)
    if steps <= 1:
        return libm.power(float(base), np.full(steps, float(s))).astype(dt)
    step = float(e - s) / (steps - 1)
    i = np.arange(steps)
    ex = np.where(i < steps // 2, float(s) + step * i, float(e) - step * (steps - i - 1))
    return libm.power(float(base), ex).astype(dt)
