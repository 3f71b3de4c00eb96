"""Gradients of every op against central finite differences (float64) and real torch."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch

RNG = np.random.default_rng(7)

# name -> (f(t, *inputs), input shapes, positive-only inputs?)
OPS = {
    "add": (lambda t, a, b: a + b, [(3,), (3,)], False),
    "add_bcast": (lambda t, a, b: a + b, [(2, 3), (3,)], False),
    "add_alpha": (lambda t, a, b: t.add(a, b, alpha=2.5), [(3,), (3,)], False),
    "sub_bcast": (lambda t, a, b: a - b, [(2, 1), (1, 3)], False),
    "rsub": (lambda t, a: 2 - a, [(3,)], False),
    "mul": (lambda t, a, b: a * b, [(3,), (3,)], False),
    "mul_bcast": (lambda t, a, b: a * b, [(4, 1, 3), (2, 1)], False),
    "mul_scalar": (lambda t, a: a * 3.0, [(3,)], False),
    "div": (lambda t, a, b: a / b, [(3,), (3,)], True),
    "div_bcast": (lambda t, a, b: a / b, [(2, 3), (2, 1)], True),
    "rdiv": (lambda t, a: 2 / a, [(3,)], True),
    "pow_scalar": (lambda t, a: a**3, [(3,)], False),
    "pow_frac": (lambda t, a: a**0.5, [(3,)], True),
    "pow_tensor": (lambda t, a, b: a**b, [(3,), (3,)], True),
    "rpow": (lambda t, a: 2.0**a, [(3,)], False),
    "neg": (lambda t, a: -a, [(3,)], False),
    "abs": (lambda t, a: a.abs(), [(3,)], False),
    "exp": (lambda t, a: a.exp(), [(3,)], False),
    "log": (lambda t, a: a.log(), [(3,)], True),
    "sqrt": (lambda t, a: a.sqrt(), [(3,)], True),
    "sin": (lambda t, a: a.sin(), [(3,)], False),
    "cos": (lambda t, a: a.cos(), [(3,)], False),
    "tanh": (lambda t, a: a.tanh(), [(3,)], False),
    "sigmoid": (lambda t, a: a.sigmoid(), [(3,)], False),
    "relu": (lambda t, a: a.relu(), [(4,)], False),
    "clamp": (lambda t, a: a.clamp(-0.3, 0.4), [(5,)], False),
    "sum": (lambda t, a: a.sum(), [(2, 3)], False),
    "sum_dim": (lambda t, a: a.sum(1), [(2, 3)], False),
    "sum_keep": (lambda t, a: a.sum(0, keepdim=True) * a, [(2, 3)], False),
    "sum_dims": (lambda t, a: a.sum((0, 2)), [(2, 3, 2)], False),
    "mean": (lambda t, a: a.mean(), [(2, 3)], False),
    "mean_dim": (lambda t, a: a.mean(-1), [(2, 3)], False),
    "mm": (lambda t, a, b: a @ b, [(2, 3), (3, 4)], False),
    "mv": (lambda t, a, b: a @ b, [(2, 3), (3,)], False),
    "vm": (lambda t, a, b: a @ b, [(3,), (3, 2)], False),
    "dot": (lambda t, a, b: a @ b, [(3,), (3,)], False),
    "addmm": (
        lambda t, a, b, c: t.addmm(a, b, c, beta=0.5, alpha=2.0),
        [(2,), (3, 4), (4, 2)],
        False,
    ),
    "split": (lambda t, a: a.split(2)[0] * a.split(2)[1], [(4,)], False),
    "split_unused": (lambda t, a: a.split([1, 3])[1] * 2, [(4,)], False),
    "unbind": (lambda t, a: a.unbind(1)[0] * a.unbind(1)[2], [(2, 3)], False),
    "narrow": (lambda t, a: a.narrow(0, 1, 2) * 2, [(4,)], False),
    "bmm": (lambda t, a, b: a @ b, [(2, 2, 3), (2, 3, 2)], False),
    "bmm_bcast": (lambda t, a, b: a @ b, [(2, 2, 3), (3, 2)], False),
    "view": (lambda t, a: a.view(3, 2) * t.tensor([1.0, 2.0], dtype=t.float64), [(2, 3)], False),
    "t": (lambda t, a: a.t() * t.tensor([1.0, 2.0], dtype=t.float64), [(2, 3)], False),
    "permute": (
        lambda t, a: a.permute(2, 0, 1).reshape(-1) * t.arange(12.0, dtype=t.float64),
        [(2, 3, 2)],
        False,
    ),
    "expand": (
        lambda t, a: a.expand(2, 3) * t.arange(6.0, dtype=t.float64).view(2, 3),
        [(3,)],
        False,
    ),
    "select": (lambda t, a: a[1] * 2, [(2, 3)], False),
    "slice": (lambda t, a: a[:, 1:] * 2, [(2, 3)], False),
    "step_slice": (lambda t, a: a[::2] * 3, [(5,)], False),
    "index_list": (lambda t, a: a[[0, 0, 2]] * 2, [(3,)], False),
    "squeeze": (lambda t, a: a.unsqueeze(0).squeeze(0).sin(), [(3,)], False),
    "reshape_copy": (
        lambda t, a: a.t().reshape(6) * t.arange(6.0, dtype=t.float64),
        [(2, 3)],
        False,
    ),
    "clone": (lambda t, a: a.clone() * a, [(3,)], False),
    "setitem": (lambda t, a, b: _setitem(a, b), [(4,), (2,)], False),
    "inplace_view": (lambda t, a: _inplace_view(a), [(4,)], False),
    "inplace_chain": (lambda t, a, b: _inplace_chain(a, b), [(3,), (3,)], True),
    "copy_": (lambda t, a: t.zeros(3, dtype=t.float64).copy_(a) * a, [(3,)], False),
    "to_float": (lambda t, a: a.float().double() * a, [(3,)], False),
}


def _setitem(a, b):
    c = a * 1
    c[1:3] = b * b
    return c * c


def _inplace_view(a):
    b = a * 2
    v = b[1:3]
    v.mul_(a[2:4] * 1)
    return b.sin()


def _inplace_chain(a, b):
    c = a * 1
    c.add_(b)
    c.mul_(b)
    c.div_(2)
    c.pow_(2)
    return c


def _inputs(shapes, positive):
    out = []
    for s in shapes:
        v = RNG.uniform(0.5, 1.5, s) if positive else RNG.uniform(-1.0, 1.0, s)
        out.append(v)
    return out


def _weighted(t, out, w):
    return (out * t.tensor(w)).sum()


def _grads(t, f, arrays, w):
    xs = [t.tensor(a, requires_grad=True) for a in arrays]
    _weighted(t, f(t, *xs), w).backward()
    return [x.grad.numpy().copy() if x.grad is not None else None for x in xs]


def _value(f, arrays, w):
    with torch.no_grad():
        return float(_weighted(torch, f(torch, *[torch.tensor(a) for a in arrays]), w))


# float32 round trips cannot be checked by float64 finite differences
FD_OPS = [k for k in OPS if k != "to_float"]


@pytest.mark.parametrize("name", FD_OPS)
def test_gradient_matches_finite_differences(name):
    f, shapes, positive = OPS[name]
    arrays = _inputs(shapes, positive)
    with torch.no_grad():
        out_shape = f(torch, *[torch.tensor(a) for a in arrays]).shape
    w = RNG.uniform(-1, 1, tuple(out_shape))
    grads = _grads(torch, f, arrays, w)
    eps = 1e-6
    for i, a in enumerate(arrays):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi = [x.copy() for x in arrays]
            lo = [x.copy() for x in arrays]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            num[idx] = (_value(f, hi, w) - _value(f, lo, w)) / (2 * eps)
        assert grads[i].shape == a.shape
        np.testing.assert_allclose(grads[i], num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(OPS))
def test_gradient_matches_torch(rt, name):
    f, shapes, positive = OPS[name]
    arrays = _inputs(shapes, positive)
    with torch.no_grad():
        out_shape = f(torch, *[torch.tensor(a) for a in arrays]).shape
    w = RNG.uniform(-1, 1, tuple(out_shape))
    ours = _grads(torch, f, arrays, w)
    theirs = _grads(rt, f, arrays, w)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_float32_grads_stay_float32_under_promotion():
    x = torch.ones(3, requires_grad=True)
    y = torch.ones(3, dtype=torch.float64, requires_grad=True)
    (x * y).sum().backward()
    assert x.grad.dtype is torch.float32 and y.grad.dtype is torch.float64


def test_relu_and_clamp_at_boundaries_match_torch(rt):
    def run(t):
        x = t.tensor([-1.0, 0.0, 1.0, 2.0], requires_grad=True)
        (x.relu() + x.clamp(0.0, 1.0) + x.abs()).sum().backward()
        return x.grad.tolist()

    assert run(torch) == run(rt)


def test_relu_passes_the_gradient_at_nan_as_torchs_threshold_backward(rt):
    """threshold_backward is `y <= 0 ? 0 : g`: a nan output passes its gradient (a `y > 0`
    mask gave 0 there), in the plain backward and under create_graph alike."""

    def run(t):
        x = t.tensor([float("nan"), -0.0, 0.0, 3.0, -2.0], requires_grad=True)
        (x * 2).relu().backward(t.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
        plain = x.grad.tolist()
        x = t.tensor([float("nan"), 1.0, -1.0], requires_grad=True)
        (g,) = t.autograd.grad(x.relu().pow(2).sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return plain, [v if v == v else "nan" for v in g.tolist()], gg.tolist()

    assert run(torch) == run(rt)


def _second(t, f, arrays, w):
    """Gradient of sum(grad(f) * 1) w.r.t. the inputs: exercises create_graph rules."""
    xs = [t.tensor(a, requires_grad=True) for a in arrays]
    out = _weighted(t, f(t, *xs), w)
    gs = t.autograd.grad(out, xs, create_graph=True, allow_unused=True)
    total = sum((g * g).sum() for g in gs if g is not None and g.requires_grad)
    if not isinstance(total, (t.Tensor,)):
        return None
    second = t.autograd.grad(total, xs, allow_unused=True)
    return [None if s is None else s.numpy(force=True).copy() for s in second]


@pytest.mark.parametrize("name", list(OPS))
def test_second_order_matches_torch(rt, name):
    f, shapes, positive = OPS[name]
    arrays = _inputs(shapes, positive)
    with torch.no_grad():
        out_shape = f(torch, *[torch.tensor(a) for a in arrays]).shape
    w = RNG.uniform(-1, 1, tuple(out_shape))
    ours = _second(torch, f, arrays, w)
    theirs = _second(rt, f, arrays, w)
    if theirs is None or ours is None:
        # NOTE: where the second derivative is identically zero (relu, abs), torch may still
        # build a graph of zeros while ours has none: compare as zeros
        ours = ours or [None] * len(arrays)
        theirs = theirs or [None] * len(arrays)
    for a, b in zip(ours, theirs):
        if b is None or a is None:
            assert not np.any(a) and not np.any(b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
