"""Fused losses (torch._C._nn.mse_loss / nll_loss_nd): values, gradients, nodes, tangents."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as dv
from detachviz.torch.autograd import forward_ad as fwad

RNG = np.random.default_rng(0)
X2 = RNG.standard_normal((3, 4))
T2 = RNG.standard_normal((3, 4))
WEIGHT = np.array([1.0, 2.0, 0.5, 3.0])

# name -> (input shape, target, kwargs for nll_loss_nd)
NLL_CASES = {
    "1d": ((4,), 2, {}),
    "2d": ((3, 4), [0, 3, 1], {}),
    "2d-weight": ((3, 4), [0, 3, 1], {"weight": WEIGHT}),
    "2d-ignore": ((3, 4), [0, -100, 1], {}),
    "2d-ignore-weight": ((3, 4), [2, 3, 2], {"weight": WEIGHT, "ignore_index": 3}),
    "3d": ((2, 4, 3), [[0, 1, 3], [2, 2, 0]], {"weight": WEIGHT}),
    "4d": ((2, 4, 2, 1), [[[0], [3]], [[1], [2]]], {}),
}
REDUCTIONS = [0, 1, 2]  # torch's enum: none, mean, sum


def _fd_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences of sum(f(x)) (weighted by fixed random cotangent)."""
    out = np.asarray(f(x))
    cot = np.linspace(0.5, 1.5, out.size).reshape(out.shape)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = ((np.asarray(f(xp)) - np.asarray(f(xm))) * cot).sum() / (2 * eps)
    return g, cot


def _mse(x, t, red):
    return dv._C._nn.mse_loss(dv.tensor(x, dtype=dv.float64), dv.tensor(t, dtype=dv.float64), red)


def _nll(x, target, kw, red, ns=dv):
    w = kw.get("weight")
    return ns._C._nn.nll_loss_nd(
        ns.tensor(x, dtype=ns.float64),
        ns.tensor(target),
        None if w is None else ns.tensor(w, dtype=ns.float64),
        red,
        kw.get("ignore_index", -100),
    )


@pytest.mark.parametrize("red", REDUCTIONS)
def test_mse_gradients_match_finite_differences(red):
    x = dv.tensor(X2, dtype=dv.float64, requires_grad=True)
    t = dv.tensor(T2, dtype=dv.float64, requires_grad=True)
    out = dv._C._nn.mse_loss(x, t, red)
    gx_fd, cot = _fd_grad(lambda v: _mse(v, T2, red).numpy(), X2)
    gt_fd, _ = _fd_grad(lambda v: _mse(X2, v, red).numpy(), T2)
    out.backward(dv.tensor(cot, dtype=dv.float64))
    np.testing.assert_allclose(x.grad.numpy(), gx_fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(t.grad.numpy(), gt_fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("case", list(NLL_CASES))
def test_nll_gradient_matches_finite_differences(case, red):
    shape, target, kw = NLL_CASES[case]
    x0 = RNG.standard_normal(shape)
    x = dv.tensor(x0, dtype=dv.float64, requires_grad=True)
    w = kw.get("weight")
    out = dv._C._nn.nll_loss_nd(
        x,
        dv.tensor(target),
        None if w is None else dv.tensor(w, dtype=dv.float64),
        red,
        kw.get("ignore_index", -100),
    )
    g_fd, cot = _fd_grad(lambda v: _nll(v, target, kw, red).numpy(), x0)
    out.backward(dv.tensor(cot, dtype=dv.float64))
    np.testing.assert_allclose(x.grad.numpy(), g_fd, rtol=1e-6, atol=1e-8)


def test_nll_mean_of_hand_values():
    # -(x[0,1]*2 + x[1,0]*1) / (2 + 1), with class weights [1, 2]
    x = dv.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = dv._C._nn.nll_loss_nd(x, dv.tensor([1, 0]), dv.tensor([1.0, 2.0]), 1, -100)
    assert out.item() == pytest.approx(-(2.0 * 2 + 3.0) / 3)
    assert out.grad_fn._saved_total_weight.item() == 3.0
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, -2 / 3], [-1 / 3, 0]], rtol=1e-6)


def test_mse_double_backward_builds_a_graph():
    # d/dx of d(mean (x - t)^2)/dx summed = 2/n * n = 2 per element's second derivative
    x = dv.tensor([1.0, 2.0, 4.0], dtype=dv.float64, requires_grad=True)
    out = dv._C._nn.mse_loss(x, dv.tensor([0.0, 0.0, 0.0], dtype=dv.float64), 2)
    (g,) = dv.autograd.grad(out, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2.0, 4.0, 8.0])
    (gg,) = dv.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [2.0, 2.0, 2.0])


@pytest.mark.parametrize(
    ("target", "message", "exc"),
    [
        ([0, 7, 1], "Target 7 is out of bounds.", IndexError),
        ([0, 1], "Expected input batch_size (3) to match target batch_size (2).", ValueError),
        ([0.0, 1.0, 2.0], "expected target dtype to be Long or Byte, but got Float", RuntimeError),
    ],
)
def test_nll_errors_read_like_torch(target, message, exc):
    x = dv.zeros(3, 4, requires_grad=True)
    with pytest.raises(exc) as info:
        dv._C._nn.nll_loss_nd(x, dv.tensor(target), None, 1, -100)
    assert str(info.value) == message


# ------------------------------------------------------------------------------ vs real torch
@pytest.mark.parametrize("red", REDUCTIONS)
def test_mse_matches_torch(rt, red):
    got = []
    for ns in (dv, rt):
        x = ns.tensor(X2, dtype=ns.float64, requires_grad=True)
        t = ns.tensor(T2, dtype=ns.float64)
        out = ns._C._nn.mse_loss(x, t, red)
        fn = out.grad_fn
        saved = (fn.name(), fn._saved_reduction, fn._saved_self is x, fn._saved_target is t)
        edges = [e[0] is None for e in fn.next_functions]
        out.sum().backward()
        got.append((out.detach().numpy(), x.grad.numpy(), saved, edges))
    (v, g, s, e), (tv, tg, ts, te) = got
    np.testing.assert_allclose(v, tv, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-12)
    assert s == ts and e == te


@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("case", list(NLL_CASES))
def test_nll_matches_torch(rt, case, red):
    shape, target, kw = NLL_CASES[case]
    x0 = RNG.standard_normal(shape)
    got = []
    for ns in (dv, rt):
        x = ns.tensor(x0, dtype=ns.float64, requires_grad=True)
        out = _nll_on(ns, x, target, kw, red)
        fn = out.grad_fn
        while fn.name().startswith("View"):  # 3-D: torch views to 4-D and back
            fn = fn.next_functions[0][0]
        w = fn._saved_weight
        attrs = (
            type(out.grad_fn).__name__,
            fn.name(),
            fn._saved_reduction,
            fn._saved_ignore_index,
            float(fn._saved_total_weight),
            None if w is None else w.tolist(),
            len(fn.next_functions),
        )
        out.sum().backward()
        got.append((out.detach().numpy(), x.grad.numpy(), attrs))
    (v, g, a), (tv, tg, ta) = got
    np.testing.assert_allclose(v, tv, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-12)
    assert a == ta


def _nll_on(ns, x, target, kw, red):
    w = kw.get("weight")
    weight = None if w is None else ns.tensor(w, dtype=ns.float64)
    return ns._C._nn.nll_loss_nd(x, ns.tensor(target), weight, red, kw.get("ignore_index", -100))


@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("op", ["mse", "nll"])
def test_forward_tangents_match_torch(rt, op, red):
    tangent = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    got = []
    for ns, ad in ((dv, fwad), (rt, rt.autograd.forward_ad)):
        with ad.dual_level():
            x = ad.make_dual(ns.tensor(X2, dtype=ns.float64), ns.tensor(tangent, dtype=ns.float64))
            if op == "mse":
                out = ns._C._nn.mse_loss(x, ns.tensor(T2, dtype=ns.float64), red)
            else:
                w = ns.tensor(WEIGHT, dtype=ns.float64)
                out = ns._C._nn.nll_loss_nd(x, ns.tensor([0, 3, 1]), w, red, 3)
            got.append(ad.unpack_dual(out).tangent.numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-12)
