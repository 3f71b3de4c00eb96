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


# (outer, run, inner) sizes around torch's vector widths (8 float32 / 4 float64 lanes,
# blocks of four vectors) and its cascade's block sizes
RUN_SIZES = [(a, b, c) for a in (1, 3) for b in (1, 7, 8, 33, 257) for c in (1, 3, 4, 9, 16, 33)]


@pytest.mark.parametrize(("tdt", "ndt"), FLOATS, ids=["float32", "float64"])
def test_sums_and_means_over_adjacent_dims_add_in_torchs_order(tdt, ndt):
    import detachviz.torch as dv

    rng = np.random.default_rng(2)
    for a, b, c in RUN_SIZES:
        # the run as one dim and as two (b split 1 x b), leading, middle and trailing
        x = (rng.standard_normal((a, 1, b, c)) * 30).astype(ndt)
        want_t, got_t = torch.from_numpy(x), dv.from_numpy(x)
        for dims in [(1, 2), (2,), (0, 1, 2), (2, 3), (3,), (1, 2, 3), (0,)]:
            for keepdim in (False, True):
                for op in ("sum", "mean"):
                    want = getattr(want_t, op)(dims, keepdim=keepdim)
                    got = getattr(got_t, op)(dims, keepdim=keepdim)
                    assert got.shape == want.shape
                    assert got.numpy().tobytes() == want.numpy().tobytes(), (op, x.shape, dims)


def test_dim_sums_give_torchs_bits_where_numpys_order_does_not():
    # the case the order matters for: softmax-like rows that should sum to 1
    import detachviz.torch as dv

    rng = np.random.default_rng(3)
    rows = rng.random((64, 4, 50)).astype(np.float32)
    rows /= rows.sum(-1, keepdims=True)
    numpy_order = rows.sum(-1)
    want = torch.from_numpy(rows).sum(-1).numpy()
    assert (numpy_order != want).any()  # numpy's pairwise order is not torch's here
    assert dv.from_numpy(rows).sum(-1).numpy().tobytes() == want.tobytes()
    assert (
        dv.from_numpy(rows).mean(1).numpy().tobytes()
        == torch.from_numpy(rows).mean(1).numpy().tobytes()
    )


@pytest.mark.parametrize(("tdt", "ndt"), FLOATS, ids=["float32", "float64"])
def test_broadcast_gradients_over_inner_dims_add_in_torchs_order(tdt, ndt):
    # sum_to's one keepdim sum over the broadcast dims: trailing and middle ones too
    import detachviz.torch as dv

    rng = np.random.default_rng(4)
    cases = [
        ((4, 1), (4, 50)),
        ((3, 1, 5), (3, 40, 5)),
        ((2, 3, 1), (2, 3, 70)),
        ((6, 1, 1), (6, 9, 17)),
    ]
    for small, big in cases:
        a, b = rng.standard_normal(small).astype(ndt), rng.standard_normal(big).astype(ndt)
        g = (rng.standard_normal(big) * 5).astype(ndt)
        grads = []
        for T in (torch, dv):
            x = T.from_numpy(a.copy()).requires_grad_()
            (x * T.from_numpy(b)).backward(T.from_numpy(g))
            grads.append(x.grad.numpy().tobytes())
        assert grads[0] == grads[1], (small, big)
