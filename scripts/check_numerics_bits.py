"""Exhaustive bit checks of the small-size fast paths in engine.transcendental and engine.fma
against real torch (the oracle): every float32 in a range, in chunks, compared bit for bit.

- sigmoid: every float32 x with lo <= |x| <= hi (both signs), in 1-D chunks of CHUNK elements
  (torch's Sleef path but for a last partial block; ours through `_sigmoid_fast`), then every
  stride20-th of them in 20-element arrays (16 by Sleef + a 4-element glibc tail, the
  benchmark's shape);
  plus a random sample of the small magnitudes below lo.
- tanh_backward: `1 - y*y` fused for every float32 y in [-1, 1] at a stride of bit patterns,
  against torch's tanh_backward with grad 1 (our backward: fma.one_minus_square32); then the
  exhaustive part of that function's proof: no float64 `1 - y*y` is a float32 halfway point.

Prints how many values were checked and how many differ; exits 1 if any Sleef-block element
differs. The scalar tails (the last n % 16 elements: glibc's expf in torch, numpy's float64
exp rounded once here, in the old and the new code alike) differ in about 1 of 3,000 elements:
glibc's expf is not correctly rounded (its documented error is 0.502 ulp).
Usage: python scripts/check_numerics_bits.py [--lo 0.5] [--hi 20] [--sample 10000000]
Measured run time is printed at the end (minutes on a loaded 2-core machine: not for CI).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import numpy as np

# torch's AVX2 kernels are the reference (an AVX-512 host would pick others for sigmoid)
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")

from detachviz.engine import transcendental
from detachviz.engine.fma import one_minus_square32

CHUNK = 1 << 16  # transcendental.EXACT_MAX: the largest input the exact paths take


def _floats_between(lo: float, hi: float, stride: int = 1) -> np.ndarray:
    """Every stride-th positive float32 in [lo, hi], as int32 bit patterns (in order)."""
    a = int(np.float32(lo).view(np.int32))
    b = int(np.float32(hi).view(np.int32))
    return np.arange(a, b + 1, stride, dtype=np.int32)


def _differ(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where the bits differ (any nan equals any nan)."""
    return (a.view(np.int32) != b.view(np.int32)) & ~(np.isnan(a) & np.isnan(b))


def _same(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.count_nonzero(_differ(a, b)))


def check_sigmoid(torch: Any, values: np.ndarray, width: int) -> tuple[int, int, int]:
    """(checked, differing in Sleef blocks, differing in the scalar tail) for sigmoid on
    `values`: in 1-D chunks of CHUNK (width 0), or cut into 1-D arrays of `width`, which torch
    sees as the rows of a strided (k, width) view (its inner loop restarts at each row, as for
    one `width`-element tensor)."""
    checked = bad = tail = 0
    for start in range(0, values.size, CHUNK):
        x = values[start : start + CHUNK]
        w = width or x.size
        x = x[: x.size - x.size % w]
        rows = x.reshape(-1, w)
        wide = torch.empty(rows.shape[0], w + 12)
        wide[:, :w] = torch.from_numpy(rows)
        want = torch.sigmoid(wide[:, :w]).numpy()
        got = np.stack([transcendental.sigmoid(r) for r in rows])
        diff = _differ(got, want)
        vec = w - w % 16
        bad += int(np.count_nonzero(diff[:, :vec]))
        tail += int(np.count_nonzero(diff[:, vec:]))
        checked += x.size
    return checked, bad, tail


def check_tanh_backward(torch: Any, stride: int) -> tuple[int, int]:
    bits = _floats_between(0.0, 1.0, stride)
    y = np.concatenate([bits, bits | np.int32(-(2**31))]).view(np.float32)
    checked = bad = 0
    for start in range(0, y.size, CHUNK):
        yy = y[start : start + CHUNK]
        g = np.ones_like(yy)
        want = torch.ops.aten.tanh_backward(torch.from_numpy(g), torch.from_numpy(yy)).numpy()
        bad += _same(g * one_minus_square32(yy), want)
        checked += yy.size
    return checked, bad


def count_square_ties() -> tuple[int, int]:
    """(checked, halfway) over every float32 y with 2**-13 <= y < 2**-3: how many float64
    `1 - y*y` are float32 halfway points (fma.one_minus_square32's proof needs 0)."""
    bits = _floats_between(2**-13, 2**-3)[:-1]
    ties = 0
    for start in range(0, bits.size, 1 << 22):
        y = bits[start : start + (1 << 22)].view(np.float32).astype(np.float64)
        s = 1.0 - y * y
        ties += int(np.count_nonzero((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000))
    return bits.size, ties


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lo", type=float, default=0.5)
    ap.add_argument("--hi", type=float, default=20.0)
    ap.add_argument("--sample", type=int, default=10_000_000)
    ap.add_argument("--tanh-stride", type=int, default=7)
    ap.add_argument("--stride20", type=int, default=101, help="the 20-element pass's stride")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    bits = _floats_between(args.lo, args.hi)
    values = np.concatenate([bits, bits | np.int32(-(2**31))]).view(np.float32)
    rng = np.random.default_rng(0)
    small = np.exp(rng.uniform(np.log(1e-38), np.log(args.lo), args.sample)).astype(np.float32)
    small *= rng.choice(np.array([-1, 1], np.float32), small.size)
    failed = False
    for name, vals, width in (
        (f"sigmoid, every float32 with {args.lo} <= |x| <= {args.hi}", values, 0),
        (f"sigmoid, {args.sample:,} random float32 with |x| < {args.lo}", small, 0),
        (
            f"sigmoid in 20-element arrays, every {args.stride20}th of those",
            np.ascontiguousarray(values[:: args.stride20]),
            20,
        ),
    ):
        n, bad, tail = check_sigmoid(torch, vals, width)
        failed |= bad != 0
        print(
            f"{name}: {n:,} checked, {bad} differ in Sleef blocks, {tail} in scalar tails"
            f" ({time.perf_counter() - t0:.0f} s)"
        )
    n, bad = check_tanh_backward(torch, args.tanh_stride)
    failed |= bad != 0
    print(
        f"tanh_backward 1 - y*y, every {args.tanh_stride}th float32 in [-1, 1]: {n:,} checked,"
        f" {bad} differ ({time.perf_counter() - t0:.0f} s)"
    )
    n, ties = count_square_ties()
    failed |= ties != 0
    print(f"1 - y*y in float64, every float32 2**-13 <= y < 2**-3: {n:,} checked, {ties} halfway")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
