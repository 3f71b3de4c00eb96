"""Fused multiply-add in numpy: `a * b + c` rounded once, as the FMA instructions torch's AVX2
build uses (GCC contracts a multiply feeding an add into one). numpy rounds every operation,
so kernels that torch computes with FMAs differ in the last bit without these."""

from __future__ import annotations

from typing import Any

import numpy as np


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 a*b + c with one rounding (a, b, c float32). The product is exact in float64; the
    sum rounded to float64 can only round wrongly to float32 when it lands exactly on a float32
    halfway point, and only there (rare) the exact error term decides."""
    p = np.multiply(a, b, dtype=np.float64)
    s = np.add(p, c, dtype=np.float64)
    halfway = np.flatnonzero((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000)
    if halfway.size:
        shape = s.shape
        flat = s.reshape(-1).copy()
        ph = np.broadcast_to(p, shape).reshape(-1)[halfway]
        ch = np.broadcast_to(np.asarray(c, dtype=np.float64), shape).reshape(-1)[halfway]
        sh = flat[halfway]
        err = _two_sum_err(ph, ch, sh)
        flat[halfway] = np.where(err != 0, np.nextafter(sh, np.copysign(np.inf, err)), sh)
        s = flat.reshape(shape)
    return s.astype(np.float32)


def _two_sum_err(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
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
    tl = _two_sum_err(c, ph, th)
    v = tl + pl
    verr = _two_sum_err(tl, pl, v)
    even = (v.view(np.int64) & 1) == 0
    v = np.where((verr != 0) & even, np.nextafter(v, np.copysign(np.inf, verr)), v)  # to odd
    return th + v


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = 134217729.0 * a  # 2**27 + 1: Veltkamp's split into two 26-bit halves
    hi = c - (c - a)
    return hi, a - hi
