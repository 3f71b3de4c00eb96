"""engine.fma: one rounding, checked against exact rational arithmetic, including the halfway
cases where rounding the float64 sum first would give the wrong neighbour."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from detachviz.engine import fma


def _exact_fma(a: float, b: float, c: float) -> Fraction:
    return Fraction(a) * Fraction(b) + Fraction(c)


def _nearest_f32(v: Fraction) -> float:
    """The float32 nearest to v, ties to even: the reference for fma32."""
    mid = np.float32(float(v))
    up, down = np.float32(np.inf), np.float32(-np.inf)
    cands = [np.nextafter(mid, down), mid, np.nextafter(mid, up)]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - v), int(c.view(np.int32)) & 1))
    return float(best)


def test_fma32_rounds_once_including_halfway_cases():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    c = (rng.standard_normal(3000) * 1e-3).astype(np.float32)
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 is halfway between two float32s; a tiny c above it
    # vanishes in float64, and ties-to-even would then round down to the wrong neighbour
    a = np.append(a, np.float32(1 + 2**-12))
    b = np.append(b, np.float32(1 + 2**-12))
    c = np.append(c, np.float32(2**-60))
    got = fma.fma32(a, b, c).tolist()
    exact = [
        Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) for x, y, z in zip(a, b, c)
    ]
    assert got == [_nearest_f32(v) for v in exact]
    assert got[-1] == 1 + 2**-11 + 2**-23
    assert (
        float(np.float32(np.float64(a[-1]) * np.float64(b[-1]) + np.float64(c[-1]))) == 1 + 2**-11
    )


def test_fma64_rounds_once():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(3000), rng.standard_normal(3000)
    c = rng.standard_normal(3000) * 1e-3
    # (1 + 2**-26)(1 + 2**-27) ends in 2**-53, halfway between doubles; c = 2**-100 tips it up
    a, b, c = np.append(a, 1 + 2**-26), np.append(b, 1 + 2**-27), np.append(c, 2**-100)
    got = fma.fma64(a, b, c).tolist()
    assert got == [float(_exact_fma(x, y, z)) for x, y, z in zip(a, b, c, strict=True)]
    assert got[-1] == 1 + 2**-26 + 2**-27 + 2**-52
    assert got != (a * b + c).tolist()  # the unfused sum differs somewhere: the test can fail


def test_one_minus_square32_is_the_fused_result():
    rng = np.random.default_rng(2)
    y = np.concatenate(
        [rng.uniform(-1, 1, 5000), np.exp(rng.uniform(-60, 0, 5000)), [0.0, -0.0, 1.0, -1.0]]
    ).astype(np.float32)
    assert fma.one_minus_square32(y).tolist() == fma.fma32(-y, y, np.float32(1)).tolist()


def test_one_minus_square32_never_meets_a_halfway_point_in_one_binade():
    # its docstring's exhaustive claim for 2**-13 <= |y| < 2**-3, here for the binade nearest
    # to 1 - y*y's largest rounding errors (scripts/check_numerics_bits.py runs all ten)
    lo, hi = (int(np.float32(v).view(np.int32)) for v in (2**-4, 2**-3))
    y = np.arange(lo, hi, dtype=np.int32).view(np.float32).astype(np.float64)
    s = 1.0 - y * y
    assert not np.count_nonzero((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000)
