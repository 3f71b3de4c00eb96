"""The activation family (engine/ops/activation.py, nn/activation.py) against finite
differences and real torch: values, gradients, grad_fn names and `_saved_*` attributes,
in-place forms, forward AD, create_graph double backward, and module printing."""

from __future__ import annotations

import numpy as np
import pytest

RNG = np.random.default_rng(16)

# name -> (f(torch, x), kinks to keep finite-difference points away from)
CASES = {
    "leaky_relu": (lambda t, x: t.nn.functional.leaky_relu(x, 0.2), (0.0,)),
    "leaky_relu_default": (lambda t, x: t.nn.functional.leaky_relu(x), (0.0,)),
    "elu": (lambda t, x: t.nn.functional.elu(x, 0.7), (0.0,)),
    "gelu": (lambda t, x: t.nn.functional.gelu(x), ()),
    "gelu_tanh": (lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), ()),
    "silu": (lambda t, x: t.nn.functional.silu(x), ()),
    "softplus": (lambda t, x: t.nn.functional.softplus(x), ()),
    "softplus_threshold": (lambda t, x: t.nn.functional.softplus(x, 2.0, 3.0), (1.5,)),
    "hardtanh": (lambda t, x: t.nn.functional.hardtanh(x, -0.5, 0.7), (-0.5, 0.7)),
    "relu6": (lambda t, x: t.nn.functional.relu6(x * 3), (0.0, 2.0)),
    "module_leaky": (lambda t, x: t.nn.LeakyReLU(0.3)(x), (0.0,)),
    "module_elu": (lambda t, x: t.nn.ELU()(x), (0.0,)),
    "module_gelu": (lambda t, x: t.nn.GELU("tanh")(x), ()),
    "module_silu": (lambda t, x: t.nn.SiLU()(x), ()),
    "module_softplus": (lambda t, x: t.nn.Softplus(beta=0.5, threshold=1.0)(x), (2.0,)),
    "module_hardtanh": (lambda t, x: t.nn.Hardtanh(-2.0, 1.5)(x), (-2.0, 1.5)),
    "module_relu6": (lambda t, x: t.nn.ReLU6()(x * 3), (0.0, 2.0)),
}
# in place on a non-leaf (torch's Backward1 nodes for leaky_relu_/elu_ save the result)
INPLACE = {
    "leaky_relu_": lambda t, x: t.nn.functional.leaky_relu(x * 1, 0.2, inplace=True),
    "leaky_relu_fn_": lambda t, x: t.nn.functional.leaky_relu_(x * 1, 0.1),
    "elu_": lambda t, x: t.nn.functional.elu(x * 1, 0.5, inplace=True),
    "elu_fn_": lambda t, x: t.nn.functional.elu_(x * 1),
    "silu_": lambda t, x: t.nn.functional.silu(x * 1, inplace=True),
    "hardtanh_": lambda t, x: t.nn.functional.hardtanh(x * 1, -0.5, 0.7, inplace=True),
    "hardtanh_fn_": lambda t, x: t.nn.functional.hardtanh_(x * 1),
    "relu6_": lambda t, x: t.nn.functional.relu6(x * 3, inplace=True),
    "module_leaky_": lambda t, x: t.nn.LeakyReLU(0.1, inplace=True)(x * 1),
    "module_elu_": lambda t, x: t.nn.ELU(inplace=True)(x * 1),
    "module_silu_": lambda t, x: t.nn.SiLU(inplace=True)(x * 1),
    "module_relu6_": lambda t, x: t.nn.ReLU6(inplace=True)(x * 3),
}
ALL = {**{k: v[0] for k, v in CASES.items()}, **INPLACE}
# piecewise-linear ops compute exactly torch's float32 bits; the others agree to ~1e-6
BIT_IDENTICAL = {
    "leaky_relu",
    "leaky_relu_default",
    "hardtanh",
    "relu6",
    "module_leaky",
    "module_hardtanh",
    "module_relu6",
}


def _points(n: int, kinks: tuple[float, ...]) -> np.ndarray:
    x = RNG.uniform(-4.0, 4.0, n)
    for k in kinks:  # at least 0.05 from every kink: central differences see one branch
        near = np.abs(x - k) < 0.05
        x[near] = k + np.where(x[near] >= k, 0.05, -0.05)
    return x


def _ours():
    from detachviz import torch as T

    return T


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    T = _ours()
    f, kinks = CASES[name]
    x0 = _points(40, kinks)
    w = RNG.uniform(-1.0, 1.0, x0.shape)
    x = T.tensor(x0, requires_grad=True)
    (f(T, x) * T.tensor(w)).sum().backward()

    def value(a):
        return float((f(T, T.tensor(a)).numpy() * w).sum())

    eps = 1e-6
    fd = np.array(
        [(value(x0 + eps * e) - value(x0 - eps * e)) / (2 * eps) for e in np.eye(x0.size)]
    )
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6, atol=1e-7)


def _run(t, f, a, g):
    x = t.tensor(a, requires_grad=True)
    y = f(t, x)
    y.backward(t.tensor(g))
    return x, y


@pytest.mark.parametrize("name", sorted(ALL))
def test_float32_values_and_gradients_match_torch(torch, T, name):
    f = ALL[name]
    a = (RNG.standard_normal(500) * 3).astype(np.float32)
    a[:3] = [0.0, -0.5, 0.7]  # the kinks and bounds themselves
    g = RNG.standard_normal(500).astype(np.float32)
    xr, yr = _run(torch, f, a, g)
    xd, yd = _run(T, f, a, g)
    assert yd.dtype == T.float32 and xd.grad.dtype == T.float32
    ry, dy = yr.detach().numpy(), yd.detach().numpy()
    rg, dg = xr.grad.numpy(), xd.grad.numpy()
    if name in BIT_IDENTICAL:
        assert np.array_equal(ry, dy) and np.array_equal(rg, dg)
    else:
        np.testing.assert_allclose(dy, ry, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(dg, rg, rtol=1e-5, atol=3e-6)


def _saved(fn):
    return sorted(a for a in dir(fn) if a.startswith("_saved_"))


@pytest.mark.parametrize("name", sorted(ALL))
def test_grad_fn_name_and_saved_attributes_match_torch(torch, T, name):
    f = ALL[name]
    a = np.array([-1.5, 0.25, 2.0], dtype=np.float32)
    xr, xd = torch.tensor(a, requires_grad=True), T.tensor(a, requires_grad=True)
    yr, yd = f(torch, xr), f(T, xd)
    fr, fd = yr.grad_fn, yd.grad_fn
    assert type(fd).__name__ == type(fr).__name__
    assert fd.name() == fr.name()
    assert _saved(fd) == _saved(fr)
    for attr in _saved(fr):
        r, d = getattr(fr, attr), getattr(fd, attr)
        if isinstance(r, torch.Tensor):
            np.testing.assert_array_equal(d.detach().numpy(), r.detach().numpy())
            assert (d is xd) == (r is xr)
        else:
            assert d == r and type(d) is type(r), attr


@pytest.mark.parametrize("name", sorted(ALL))
def test_forward_ad_matches_torch(torch, T, name):
    f = ALL[name]
    a = (RNG.standard_normal(200) * 3).astype(np.float64)
    v = RNG.standard_normal(200)

    def jvp(t):
        F = t.autograd.forward_ad
        with F.dual_level():
            out = f(t, F.make_dual(t.tensor(a) * 1, t.tensor(v)))
            p, tan = F.unpack_dual(out)
            return p.numpy().copy(), tan.numpy().copy()

    for ours, theirs in zip(jvp(T), jvp(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(ALL))
def test_create_graph_double_backward_matches_torch(torch, T, name):
    # the second-order values must agree; the backward-of-backward node names may differ
    f = ALL[name]
    a = (RNG.standard_normal(50) * 3).astype(np.float64)
    w = RNG.standard_normal(50)

    def second(t):
        x = t.tensor(a, requires_grad=True)
        y = f(t, x)
        (gx,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = t.autograd.grad((gx * t.tensor(w)).sum(), x)
        return gx.detach().numpy(), gg.numpy()

    for ours, theirs in zip(second(T), second(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_gelu_rejects_unknown_approximation(torch, T):
    with pytest.raises(RuntimeError) as ours:
        T.nn.functional.gelu(T.ones(2), approximate="fast")
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.gelu(torch.ones(2), approximate="fast")
    assert str(ours.value) == str(theirs.value)


def test_hardtanh_bounds_must_be_ordered_as_in_torch(torch, T):
    with pytest.raises(AssertionError) as ours:
        T.nn.Hardtanh(1.0, 0.0)
    with pytest.raises(AssertionError) as theirs:
        torch.nn.Hardtanh(1.0, 0.0)
    assert str(ours.value) == str(theirs.value)


MODULES = [
    lambda nn: nn.LeakyReLU(),
    lambda nn: nn.LeakyReLU(0.1, True),
    lambda nn: nn.ELU(),
    lambda nn: nn.ELU(alpha=0.5, inplace=True),
    lambda nn: nn.GELU(),
    lambda nn: nn.GELU(approximate="tanh"),
    lambda nn: nn.SiLU(),
    lambda nn: nn.SiLU(inplace=True),
    lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(beta=2, threshold=10),
    lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-2, 3, True),
    lambda nn: nn.ReLU6(),
    lambda nn: nn.ReLU6(inplace=True),
    lambda nn: nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 2), nn.LeakyReLU(0.2)),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_module_prints_as_in_torch(torch, T, i):
    assert str(MODULES[i](T.nn)) == str(MODULES[i](torch.nn))
    assert repr(MODULES[i](T.nn)) == repr(MODULES[i](torch.nn))


EDGES = [float("nan"), float("inf"), -float("inf"), 0.0, 1e30, -1e30, -0.5, 0.7, 6.0]


@pytest.mark.parametrize("name", sorted(ALL))
def test_nan_inf_and_huge_inputs_match_torch_without_warnings(torch, T, name, recwarn):
    # torch's kernels test `x <= 0` (elu) and `x <= min || x >= max` (hardtanh): a nan input
    # takes the other branch; overflow in a discarded branch must not warn
    f = ALL[name]
    a = np.array(EDGES, dtype=np.float32)

    def both(t):
        x = t.tensor(a, requires_grad=True)
        y = f(t, x)
        (g,) = t.autograd.grad(y.sum(), x)
        return y.detach().numpy(), g.numpy()

    theirs = both(torch)
    recwarn.clear()
    ours = both(T)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    if name == "gelu" and np.isnan(theirs[0][1]):
        # on an AVX-512 host torch's float32 gelu (oneDNN's kernel) is nan at +inf, where
        # ours (and torch's on AVX2) is the limit, inf (docs/semantics.md, "CPU")
        assert ours[0][1] == np.inf
        theirs = tuple(np.delete(r, 1) for r in theirs)
        ours = tuple(np.delete(d, 1) for d in ours)
    for d, r in zip(ours, theirs):
        # +0.0 against -0.0 (exact GELU at -1e30) counts as equal
        np.testing.assert_allclose(d, r, rtol=1e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize(
    ("fn", "kernel"),
    [
        ("leaky_relu", "leaky_relu_cpu"),
        ("elu", "elu_cpu"),
        ("gelu", "GeluKernelImpl"),
        ("silu", "silu_cpu"),
        ("softplus", "softplus_cpu"),
    ],
)
def test_integer_inputs_raise_torchs_error(torch, T, fn, kernel):
    for t in (T, torch):
        with pytest.raises(NotImplementedError) as e:
            getattr(t.nn.functional, fn)(t.tensor([-2, 1, 3]))
        assert str(e.value) == f"\"{kernel}\" not implemented for 'Long'"


def test_integer_hardtanh_and_relu6_clamp_as_in_torch(torch, T):
    for fn in ("hardtanh", "relu6"):
        ours = getattr(T.nn.functional, fn)(T.tensor([-2, 1, 3, 9]))
        theirs = getattr(torch.nn.functional, fn)(torch.tensor([-2, 1, 3, 9]))
        assert ours.dtype == T.int64
        assert ours.tolist() == theirs.tolist()


def test_gelu_approximate_is_keyword_only(torch, T):
    for t in (T, torch):
        with pytest.raises(TypeError):
            t.nn.functional.gelu(t.ones(2), "tanh")
