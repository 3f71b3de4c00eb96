"""softmax / log_softmax give torch's bits (engine/softmax.py): forward and backward, over the
last dim and over others, at sizes around the 8-lane vectors and their tails; Sleef's logf."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as dt
from detachviz.engine import ranges
from detachviz.engine.softmax import lane_sum
from detachviz.engine.transcendental import sleef_logf

torch = pytest.importorskip("torch")

SHAPES = [
    ((5,), (0,)),
    ((1, 1), (0, 1)),
    ((64, 10), (0, 1)),  # cross_entropy's (batch, classes)
    ((3, 17), (0, 1)),
    ((16, 24), (0, 1)),  # a non-last dim: two parallel ranges of 12, each 8 + 4
    ((4, 5, 7), (0, 1, 2)),
    ((8, 100), (0, 1)),
    ((2, 3, 9, 20), (0, 1, 2, 3)),
    ((7, 1000), (0, 1)),
    ((2, 300, 250), (1,)),  # log_softmax's inner chunks: 104, 104, 42
]
CASES = [
    (shape, dim, name)
    for shape, dims in SHAPES
    for dim in dims
    for name in ("softmax", "log_softmax")
]


@pytest.fixture(autouse=True)
def _torch_threads():
    """torch's non-last-dim softmax splits its work by intra-op thread: run it with the
    count detachviz assumes (the machine's cores, torch's default)."""
    before = torch.get_num_threads()
    torch.set_num_threads(ranges.THREADS)
    yield
    torch.set_num_threads(before)


def _both(shape, dim, name, seed, transpose=False):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    xt = torch.from_numpy(x).requires_grad_()
    xd = dt.tensor(x, requires_grad=True)
    ins_t, ins_d = (xt.mT, xd.mT) if transpose else (xt, xd)
    gt = torch.from_numpy(np.ascontiguousarray(g.swapaxes(-1, -2) if transpose else g))
    yt = getattr(torch, name)(ins_t, dim)
    yd = getattr(dt, name)(ins_d, dim)
    yt.backward(gt)
    yd.backward(dt.tensor(gt.numpy()))
    return yt.detach().numpy(), yd.detach().numpy(), xt.grad.numpy(), xd.grad.numpy()


@pytest.mark.parametrize(("shape", "dim", "name"), CASES)
def test_forward_and_backward_are_torch_bits(shape, dim, name):
    for seed in range(3):
        yt, yd, gt, gd = _both(shape, dim, name, seed)
        np.testing.assert_array_equal(yd, yt)
        np.testing.assert_array_equal(gd, gt)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_a_transposed_input_is_read_in_torch_order(name, dim):
    yt, yd, gt, gd = _both((12, 9), dim, name, 7, transpose=True)
    np.testing.assert_array_equal(yd, yt)
    np.testing.assert_array_equal(gd, gt)


@pytest.mark.parametrize(
    "shape", [(16, 5), (64, 10), (3, 4), (100, 7), (5,), (4, 3, 6), (2, 4, 3, 5)]
)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_sums_in_torch_cascade_and_its_gradient_order(shape, reduction, weighted):
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    for ignored in (False, True):
        x = rng.standard_normal(shape).astype(np.float32)
        t = np.asarray(rng.integers(0, classes, tshape))
        if ignored and t.ndim:
            t[rng.random(tshape) < 0.3] = -100
        w = rng.uniform(0.1, 2, classes).astype(np.float32) if weighted else None
        xt = torch.from_numpy(x).requires_grad_()
        xd = dt.tensor(x, requires_grad=True)
        lt = torch.nn.functional.nll_loss(
            xt,
            torch.from_numpy(t),
            weight=None if w is None else torch.from_numpy(w),
            reduction=reduction,
        )
        ld = dt.nn.functional.nll_loss(
            xd, dt.tensor(t), weight=None if w is None else dt.tensor(w), reduction=reduction
        )
        g = torch.full(lt.shape, 0.37)  # not 1: torch divides it by the total before weighting
        lt.backward(g)
        ld.backward(dt.tensor(g.numpy()))
        np.testing.assert_array_equal(ld.detach().numpy(), lt.detach().numpy())
        np.testing.assert_array_equal(xd.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("batch", [1, 7, 16, 17, 64, 300])
def test_cross_entropy_loss_prints_torch_digits(batch):
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 10)).astype(np.float32)
    t = rng.integers(0, 10, batch)
    lt = torch.nn.functional.cross_entropy(torch.from_numpy(x), torch.from_numpy(t))
    ld = dt.nn.functional.cross_entropy(dt.tensor(x), dt.tensor(t))
    assert repr(ld.item()) == repr(lt.item())


def test_multihead_attention_weights_are_torch_bits():
    torch.manual_seed(0)
    dt.manual_seed(0)
    mt = torch.nn.MultiheadAttention(16, 4)
    md = dt.nn.MultiheadAttention(16, 4)
    md.load_state_dict({k: dt.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 2, 16)).astype(np.float32)
    _, wt = mt(*(torch.from_numpy(x),) * 3)
    _, wd = md(*(dt.tensor(x),) * 3)
    np.testing.assert_array_equal(wd.detach().numpy(), wt.detach().numpy())


def test_lane_sum_folds_as_the_avx2_shuffles():
    x = np.arange(1, 20, dtype=np.float32)[None, :] * np.float32(0.1)
    lanes = x[0, :8].copy()
    lanes += x[0, 8:16]
    lanes[:3] += x[0, 16:]
    want = ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + (
        (lanes[1] + lanes[5]) + (lanes[3] + lanes[7])
    )
    assert lane_sum(x)[0] == want
    short = x[:, :5]
    assert (
        lane_sum(short)[0]
        == (((short[0, 0] + short[0, 1]) + short[0, 2]) + short[0, 3]) + short[0, 4]
    )


def test_sleef_logf_is_within_one_ulp_and_keeps_the_special_values():
    rng = np.random.default_rng(0)
    d = np.concatenate(
        [
            rng.uniform(1, 1000, 20000),
            rng.uniform(1e-30, 1e-3, 2000),
            np.array([1e-40, 1.5e-45, 3.4e38]),  # subnormals and the largest float
        ]
    ).astype(np.float32)
    got = sleef_logf(d)
    exact = np.log(d.astype(np.float64))
    ulp = np.spacing(np.abs(exact.astype(np.float32)))
    assert np.all(np.abs(got - exact) <= ulp)
    assert (got != exact.astype(np.float32)).mean() < 0.01  # nearly always correctly rounded
    special = np.array([0.0, -0.0, -1.0, np.inf, np.nan], dtype=np.float32)
    np.testing.assert_array_equal(sleef_logf(special), [-np.inf, -np.inf, np.nan, np.inf, np.nan])


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 11))
    for name in ("softmax", "log_softmax"):
        for dim in (0, 1):
            w = rng.standard_normal((3, 11))
            xd = dt.tensor(x.astype(np.float32), requires_grad=True)
            (getattr(dt, name)(xd, dim) * dt.tensor(w.astype(np.float32))).sum().backward()
            fd = np.zeros_like(x)
            for i in np.ndindex(*x.shape):
                e = np.zeros_like(x)
                e[i] = 1e-6
                up = (_float64(name, x + e, dim) * w).sum()
                down = (_float64(name, x - e, dim) * w).sum()
                fd[i] = (up - down) / 2e-6
            np.testing.assert_allclose(xd.grad.numpy(), fd, rtol=1e-3, atol=1e-4)


def _float64(name, x, dim):
    shifted = x - x.max(axis=dim, keepdims=True)
    log = shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))
    return log if name == "log_softmax" else np.exp(log)
