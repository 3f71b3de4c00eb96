"""engine.transcendental against torch 2.13 CPU: sigmoid bit for bit (Sleef expf on 16-element
runs, glibc expf on the tail and on strided inputs); without the exact extra, sin/cos/exp/log/tanh
within one ulp and mostly identical (torch runs MKL's VML there; the fallback rounds float64).
The fallback is called directly (`op.fallback`), so these hold with and without MKL;
test_mkl_exact.py checks the MKL path."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as dv
from detachviz.engine import transcendental

SIZES = (1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 4099)
_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.7, -88.7, -103.9, -104.5, 100.5]


def _inputs(n: int, seed: int, lo: float = -12.0, hi: float = 12.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(lo, hi, n), np.exp(rng.uniform(-30, 5, n))]).astype(np.float32)
    x = rng.permutation(x)[:n]
    k = min(n, len(_SPECIAL))
    x[rng.choice(n, k, replace=False)] = np.array(_SPECIAL[:k], dtype=np.float32)
    return x


def _bits(a: np.ndarray) -> list[int]:
    a = np.where(np.isnan(a), np.float32(np.nan), a)  # any nan is torch's nan
    return a.astype(np.float32).view(np.int32).tolist()


@pytest.mark.parametrize("n", SIZES)
def test_sigmoid_is_torchs_bits(rt, n):
    for seed in (0, 1):
        x = _inputs(n, seed, -30.0, 30.0)
        want = rt.sigmoid(rt.from_numpy(x)).numpy()
        assert _bits(transcendental.sigmoid(x)) == _bits(want)


def test_sigmoid_strided_and_transposed_inputs_take_torchs_paths(rt):
    x = _inputs(40 * 33, 3, -20.0, 20.0).reshape(40, 33)
    t = rt.from_numpy(x)
    for ours, theirs in ((x[:, ::2], t[:, ::2]), (x.T, t.T), (x[::3], t[::3])):
        assert _bits(transcendental.sigmoid(ours)) == _bits(rt.sigmoid(theirs).numpy())


def test_sigmoid_through_the_tensor_api(rt):
    x = np.random.default_rng(4).uniform(-9.0, 9.0, 100).astype(np.float32)
    ours = dv.tensor(x.tolist()).sigmoid().tolist()
    assert ours == rt.tensor(x.tolist()).sigmoid().tolist()
    assert dv.sigmoid(dv.tensor(x.tolist())).tolist() == ours


@pytest.mark.parametrize("op", ["sin", "cos", "exp", "log", "tanh"])
def test_vml_ops_within_one_ulp_and_mostly_identical(rt, op):
    same = total = 0
    for n in SIZES:
        x = _inputs(n, n, 0.0 if op == "log" else -12.0, 90.0 if op == "exp" else 12.0)
        if op == "log":
            x = np.abs(x)
        want = getattr(rt, op)(rt.from_numpy(x)).numpy()
        got = getattr(transcendental, op).fallback(x)
        finite = np.isfinite(want)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert (got[~finite & ~np.isnan(want)] == want[~finite & ~np.isnan(want)]).all()
        ulps = np.abs(got[finite].view(np.int32).astype(np.int64) - want[finite].view(np.int32))
        assert ulps.max(initial=0) <= 1
        same += int((ulps == 0).sum()) + int((~finite).sum())
        total += n
    assert same / total >= 0.9  # measured: scripts/bench_numerics.py


def test_large_inputs_keep_numpys_float32_kernels():
    x = np.linspace(-5, 5, transcendental.EXACT_MAX + 1, dtype=np.float32)
    sin = transcendental.sin.fallback
    assert sin(x).tolist() == np.sin(x).tolist()
    assert sin(x[:-1]).tolist() == np.sin(x[:-1].astype(np.float64)).astype(np.float32).tolist()


def test_the_backend_is_mkl_exactly_when_it_loads():
    from detachviz.engine import mkl

    x = np.linspace(-3, 3, 1001, dtype=np.float32)
    got = transcendental.sin(x)
    if mkl.available():
        assert got.tolist() == mkl.vml("Sin")(x).tolist()
    else:
        assert got.tolist() == transcendental.sin.fallback(x).tolist()


def _reference_sleef(d: np.ndarray) -> np.ndarray:
    from detachviz.engine.fma import fma32

    return transcendental._sleef_expf(d, fma32)  # every fused step through the exact fma32


def test_sleef_fast_path_is_the_reference_emulation_bit_for_bit():
    # random magnitudes, the chain's fixed point, exact-halfway sums (linspace data: the fast
    # path keeps them), and the edge of its range; scripts/check_numerics_bits.py checks every
    # float32 in [0.5, 20] against torch
    rng = np.random.default_rng(7)
    parts = [
        rng.uniform(-87, 87, 4096),
        np.exp(rng.uniform(-80, 4, 4096)) * rng.choice([-1, 1], 4096),
        np.full(16, 0.65904605),
        np.linspace(-3, 3, 20 * 16),
        [87.0, -87.0, 0.0, -0.0, 1e-40, -1e-45],
    ]
    d = np.concatenate(parts).astype(np.float32)
    d = d[: d.size - d.size % 16]
    assert transcendental._in_fast_range(d)
    fast = transcendental._sleef_expf_fast(d, d.astype(np.float64), np.empty_like(d))
    assert fast is not None
    assert _bits(fast) == _bits(_reference_sleef(d))
    linspace = np.linspace(-3, 3, 320, dtype=np.float32)  # has exact halfway sums
    sums_tied = transcendental._sleef_expf_fast(
        linspace, linspace.astype(np.float64), np.empty_like(linspace)
    )
    assert sums_tied is not None and _bits(sums_tied) == _bits(_reference_sleef(linspace))


def test_sleef_outside_the_fast_range_takes_the_reference():
    d = np.array([87.5, -88.0, 100.5, -104.5, np.nan, np.inf] + [1.0] * 10, dtype=np.float32)
    assert not transcendental._in_fast_range(d)
    assert _bits(transcendental.sleef_expf(d)) == _bits(_reference_sleef(d))


@pytest.mark.parametrize("n", (1, 4, 15, 16, 20, 33, 48))
def test_sigmoid_fast_path_sizes_against_torch(rt, n):
    rng = np.random.default_rng(n)
    for x in (rng.uniform(-9, 9, n), np.linspace(-3, 3, n), np.full(n, 0.65904605)):
        x = x.astype(np.float32)
        assert transcendental._sigmoid_fast(x) is not None
        assert _bits(transcendental.sigmoid(x)) == _bits(rt.sigmoid(rt.from_numpy(x)).numpy())


def test_sigmoid_fast_path_for_contiguous_nd_and_row_strided_inputs(rt):
    x = np.random.default_rng(9).uniform(-9, 9, (6, 4, 21)).astype(np.float32)
    t = rt.from_numpy(x)
    assert transcendental._in_fast_range(x)
    for ours, theirs in ((x, t), (x[:, 1], t[:, 1]), (x[::2, ::3], t[::2, ::3])):
        assert _bits(transcendental.sigmoid(ours)) == _bits(rt.sigmoid(theirs).numpy())
