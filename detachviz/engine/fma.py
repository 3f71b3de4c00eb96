"""Fused multiply-add in numpy: `a * b + c` rounded once, as the FMA instructions torch's AVX2
build uses (GCC contracts a multiply feeding an add into one). numpy rounds every operation,
so kernels that torch computes with FMAs differ in the last bit without these."""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import kernels

_F64 = np.dtype(np.float64)
_LOW = np.int64(0x1FFFFFFF)  # a float64's bits below float32 precision (normal range)
_HALF = np.int64(0x10000000)  # those bits of a float32 halfway point


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 a*b + c with one rounding (a, b, c float32): the compiled kernel where it was
    built (engine/kernels.py), else the numpy emulation."""
    if kernels.available:
        return kernels.fma32(a, b, c)
    return emulated_fma32(a, b, c)


def emulated_fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 a*b + c with one rounding (a, b, c float32). The product is exact in float64; the
    sum rounded to float64 can only round wrongly to float32 when it lands exactly on a float32
    halfway point, and only there (rare) the exact error term decides.
    NOTE: the common case is six numpy calls (a 20-element call is their overhead); the tie
    search and the exact error term run only when some sum is a halfway point."""
    s = np.multiply(a, b, dtype=_F64)
    s += c
    if np.count_nonzero((s.view(np.int64) & _LOW) == _HALF):
        s = _untie(s, a, b, c)
    return s.astype(np.float32)


def one_minus_square32(y: np.ndarray) -> np.ndarray:
    """fma32(-y, y, 1) for float32 y (tanh_backward's `1 - y*y`): `1 - y*y` in float64, rounded
    once, which is the fused result for every float32 y:
    - |y| >= 2**-3: y*y is a multiple of 2**-52 (y one of 2**-26), so 1 - y*y (at most 1 when
      y is finite) is exact in float64;
    - |y| < 2**-13: the exact value and its float64 rounding lie above 1 - 2**-26, nearer to 1
      than the float32 halfway point 1 - 2**-25;
    - 2**-13 <= |y| < 2**-3 (84 million float32 per sign): by exhaustion, no float64 result is
      a float32 halfway point (scripts/check_numerics_bits.py; tests/engine/test_fma.py
      checks one binade), so the double rounding cannot differ from the single one."""
    y64 = y.astype(np.float64)
    y64 *= y64
    return np.subtract(1.0, y64, out=y64).astype(np.float32)


def _untie(s: np.ndarray, a: Any, b: Any, c: Any) -> np.ndarray:
    """s (the float64 sums a*b + c) with each halfway point moved one float64 step towards the
    exact value, so that rounding it to float32 rounds the exact value."""
    halfway = np.flatnonzero(_ties(s))
    shape = s.shape
    flat = s.reshape(-1).copy()
    ph = (
        (np.broadcast_to(np.asarray(a, _F64), shape).reshape(-1)[halfway])
        * (np.broadcast_to(np.asarray(b, _F64), shape).reshape(-1)[halfway])
    )
    ch = np.broadcast_to(np.asarray(c, dtype=_F64), shape).reshape(-1)[halfway]
    sh = flat[halfway]
    err = two_sum_err(ph, ch, sh)
    flat[halfway] = np.where(err != 0, np.nextafter(sh, np.copysign(np.inf, err)), sh)
    return flat.reshape(shape)


def two_sum_err(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The rounding error of s = fl(a + b), exactly (Knuth's two-sum): 0 when s is exact."""
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """float64 a*b + c with one rounding (Boldo and Melquiond's emulation: the exact product
    as two doubles, the low parts added with round-to-odd, then one rounding to nearest)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    ph = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
    th = c + ph
    tl = two_sum_err(c, ph, th)
    v = tl + pl
    verr = two_sum_err(tl, pl, v)
    even = (v.view(np.int64) & 1) == 0
    v = np.where((verr != 0) & even, np.nextafter(v, np.copysign(np.inf, verr)), v)  # to odd
    return th + v


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = 134217729.0 * a  # 2**27 + 1: Veltkamp's split into two 26-bit halves
    hi = c - (c - a)
    return hi, a - hi


_BATCH = 1 << 13  # float64 values a Fused holds before it looks for halfway points


class Fused:
    """A cheaper fma32 for kernels with many fused steps: each step is one float64 multiply-add
    rounded to float32; a step whose float64 sum lands on a float32 halfway point is kept, so
    `exact()` can tell afterwards whether that sum was itself rounded there (the only case
    where this differs from fma32). Run the kernel with a Fused, and again with fma32 if not
    exact(). Only tied steps are kept: large intermediates are freed as in fma32.
    NOTE: the halfway check runs over up to _BATCH values of several steps at once (one pass
    instead of four numpy calls per step, most of a small kernel's cost)."""

    def __init__(self) -> None:
        self._tied: list[tuple[Any, Any, Any, np.ndarray]] = []
        self._pending: list[tuple[Any, Any, Any, np.ndarray]] = []
        self._held = 0

    def __call__(self, a: Any, b: Any, c: Any) -> np.ndarray:
        s = np.multiply(a, b, dtype=np.float64)
        s += c
        self._pending.append((a, b, c, s))
        self._held += s.size
        if self._held >= _BATCH:
            self._check()
        return s.astype(np.float32)

    def _check(self) -> None:
        steps = self._pending
        self._pending = []
        self._held = 0
        if len(steps) == 1:
            every = steps[0][3]
        else:
            every = np.concatenate([step[3].reshape(-1) for step in steps])
        if _ties(every).any():
            self._tied += [step for step in steps if _ties(step[3]).any()]

    def exact(self) -> bool:
        if self._pending:
            self._check()
        return not any(_double_rounded(*step) for step in self._tied)


def _double_rounded(a: Any, b: Any, c: Any, s: np.ndarray) -> bool:
    tie = np.flatnonzero(_ties(s))
    if not tie.size:
        return False
    a, b, c = (
        np.broadcast_to(np.asarray(v, np.float64), s.shape).reshape(-1)[tie] for v in (a, b, c)
    )
    return bool(two_sum_err(a * b, c, s.reshape(-1)[tie]).any())


def _ties(s: np.ndarray) -> np.ndarray:
    """float64 values exactly halfway between two float32 neighbours."""
    return (s.view(np.int64) & 0x1FFFFFFF) == 0x10000000
