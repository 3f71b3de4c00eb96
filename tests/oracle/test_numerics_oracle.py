"""Numerics against real torch: linspace/arange/logspace as torch's kernels compute them, and
whole-tensor float sums and means in torch's addition order (compared with `==`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from detachviz.engine import ranges, summation

torch = pytest.importorskip("torch")

FLOATS = [(torch.float32, np.float32), (torch.float64, np.float64)]


RANGE_CASES = [(-math.pi, math.pi, 2000), (0, 1, 100), (-1, 1, 7), (2, -3, 1001), (-5, 5, 70001)]


@pytest.mark.parametrize(("tdt", "ndt"), FLOATS, ids=["float32", "float64"])
@pytest.mark.parametrize(("start", "end", "steps"), RANGE_CASES)
def test_linspace_and_logspace_equal_torchs(start, end, steps, tdt, ndt):
    want = torch.linspace(start, end, steps, dtype=tdt).tolist()
    assert ranges.linspace(start, end, steps, ndt).tolist() == want
    want = torch.logspace(start / 2, end / 2, steps, 3.0, dtype=tdt).tolist()
    assert ranges.logspace(start / 2, end / 2, steps, 3.0, ndt).tolist() == want


@pytest.mark.parametrize(("tdt", "ndt"), FLOATS, ids=["float32", "float64"])
@pytest.mark.parametrize(
    ("start", "end", "step"),
    [(0, 10, 0.1), (-3.3, 7.7, 0.01), (0, 1, 1 / 3), (1, 0, -0.1), (0, 100000, 1.0), (-2, 2, 1e-5)],
)
def test_arange_equals_torchs(start, end, step, tdt, ndt):
    import detachviz.torch as dv

    dt = dv.float32 if tdt is torch.float32 else dv.float64
    assert (
        dv.arange(start, end, step, dtype=dt).tolist()
        == torch.arange(start, end, step, dtype=tdt).tolist()
    )


SUM_SIZES = [*range(0, 70), 100, 255, 256, 257, 1000, 2000, 4095, 4096, 10000, 32768]


@pytest.mark.parametrize(("tdt", "ndt"), FLOATS, ids=["float32", "float64"])
def test_whole_tensor_sums_add_in_torchs_order(tdt, ndt):
    rng = np.random.default_rng(0)
    for n in SUM_SIZES:
        for scale in (1.0, 1e4):
            a = (rng.standard_normal(n) * scale).astype(ndt)
            assert float(summation.total(a)) == torch.from_numpy(a).sum().item(), n


def test_sum_mean_and_broadcast_gradients_through_the_api():
    import detachviz.torch as dv

    rng = np.random.default_rng(1)
    data = rng.standard_normal(2000).astype(np.float32).tolist()
    x, y = torch.tensor(data), dv.tensor(data)
    assert y.sum().item() == x.sum().item()
    assert y.mean().item() == x.mean().item()
    assert y.sum(0).item() == x.sum(0).item()
    a, b = torch.ones((), requires_grad=True), dv.ones((), requires_grad=True)
    (a * x).sum().backward()
    (b * y).sum().backward()
    assert b.grad.item() == a.grad.item()  # the broadcast gradient is summed as torch sums it
