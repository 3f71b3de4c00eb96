"""torch.autograd.Function: node names, ctx API, gradients (finite differences, torch),
create_graph through a backward written with tensor ops, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as dv


def _define(ns):
    """The same custom Functions on a torch namespace."""

    class Cube(ns.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x * x * x * scale

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x * ctx.scale, None

    class MulAdd(ns.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a + b

        @staticmethod
        def backward(ctx, g_mul, g_add):
            a, b = ctx.saved_tensors
            return g_mul * b + g_add, g_mul * a + g_add

    return Cube, MulAdd


X = np.array([0.5, -1.0, 2.0])
Y = np.array([1.5, 2.0, -0.5])


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def test_gradients_match_finite_differences():
    cube, muladd = _define(dv)

    def loss(xv, yv):
        t = [v if isinstance(v, dv.Tensor) else dv.tensor(v, dtype=dv.float64) for v in (xv, yv)]
        a, b = muladd.apply(*t)
        return (cube.apply(a, 2.0) + b * b).sum()

    x = dv.tensor(X, dtype=dv.float64, requires_grad=True)
    y = dv.tensor(Y, dtype=dv.float64, requires_grad=True)
    out = loss(x, y)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), _fd(lambda v: loss(v, Y).item(), X), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), _fd(lambda v: loss(X, v).item(), Y), rtol=1e-6)


def test_graph_names_and_double_backward_match_torch():
    torch = pytest.importorskip("torch")
    res = []
    for ns in (dv, torch):
        cube, muladd = _define(ns)
        x = ns.tensor(X, dtype=ns.float64, requires_grad=True)
        y = ns.tensor(Y, dtype=ns.float64)
        a, b = muladd.apply(x, y)
        c = cube.apply(a, 2.0)
        (g,) = ns.autograd.grad(c.sum(), x, create_graph=True)
        (gg,) = ns.autograd.grad(g.sum(), x)
        names = [
            type(c.grad_fn).__name__,
            type(a.grad_fn).__name__,
            a.grad_fn is b.grad_fn,
            len(c.grad_fn.next_functions),
            [n is None for n, _ in a.grad_fn.next_functions],
            g.grad_fn is not None,
        ]
        res.append((names, c.detach().numpy(), g.detach().numpy(), gg.numpy()))
    assert (
        res[0][0] == res[1][0] == ["CubeBackward", "MulAddBackward", True, 1, [False, True], True]
    )
    for ours, theirs in zip(res[0][1:], res[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_ctx_flags_and_grad_mode():
    seen = {}

    class Probe(dv.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            seen["needs"] = ctx.needs_input_grad
            seen["grad_enabled"] = dv.is_grad_enabled()
            return x * k + y

        @staticmethod
        def backward(ctx, g):
            seen["backward_grad_enabled"] = dv.is_grad_enabled()
            return g * 2, None, None

    x = dv.ones(2, requires_grad=True)
    Probe.apply(x, 2.0, dv.ones(2)).sum().backward()
    assert seen == {
        "needs": (True, False, False),
        "grad_enabled": False,
        "backward_grad_enabled": False,
    }
    assert x.grad.tolist() == [2.0, 2.0]
    with dv.no_grad():
        assert Probe.apply(x, 2.0, dv.ones(2)).grad_fn is None


def test_errors_follow_torch():
    class Wrong(dv.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = dv.ones(2, requires_grad=True)
    out = Wrong.apply(x)
    assert out is not x and out.grad_fn.name() == "WrongBackward"
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 1, got 2\)"):
        out.sum().backward()

    cube, _ = _define(dv)
    c = cube.apply(x, 1.0)
    c.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        c.sum().backward()


def test_forward_ad_needs_a_jvp():
    from detachviz.torch.autograd import forward_ad as fwad

    cube, _ = _define(dv)
    with fwad.dual_level():
        d = fwad.make_dual(dv.ones(2), dv.ones(2))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            cube.apply(d, 1.0)
