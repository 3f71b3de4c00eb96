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
