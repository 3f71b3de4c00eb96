"""Forward AD with inputs that require grad: the tangent has torch's history (backward of
forward), its grad_fn names are torch's, and differentiating it gives torch's gradients and
the finite-difference ones; an op without a differentiable JVP rule refuses on backward."""

from __future__ import annotations

import numpy as np
import pytest

from detachviz import torch as T
from detachviz.nn import functional as DF

OPS = {
    "mul": lambda a, w, y, b, F: a * a,
    "add": lambda a, w, y, b, F: a + y,
    "tanh": lambda a, w, y, b, F: a.tanh(),
    "matmul": lambda a, w, y, b, F: w @ a,
    "linear": lambda a, w, y, b, F: F.linear(a, w, b),
    "relu": lambda a, w, y, b, F: a.relu(),
    "sum": lambda a, w, y, b, F: a.tanh().sum(),
    "exp": lambda a, w, y, b, F: a.exp(),
    "sigmoid": lambda a, w, y, b, F: a.sigmoid(),
    "pow": lambda a, w, y, b, F: a**2,
    "log": lambda a, w, y, b, F: (a * a).log(),
    "sin": lambda a, w, y, b, F: a.sin(),
    "mean": lambda a, w, y, b, F: a.tanh().mean(),
    "view": lambda a, w, y, b, F: a.tanh().view(3, 1),
    "t": lambda a, w, y, b, F: w.tanh().t(),
    "mul_scalar": lambda a, w, y, b, F: (w * 2).t(),
    "mv": lambda a, w, y, b, F: w.mv(a.tanh()),
    "addmm": lambda a, w, y, b, F: F.linear(a.view(1, 3), w, b),
}


def _leaves(ns):
    rng = np.random.default_rng(0)
    vals = [rng.standard_normal(s).astype(np.float32) for s in [(3,), (2, 3), (3,), (2,)]]
    x, w, y, b = (ns.tensor(v.tolist(), requires_grad=True) for v in vals)
    vx = ns.tensor(rng.standard_normal(3).astype(np.float32).tolist())
    vw = ns.tensor(rng.standard_normal((2, 3)).astype(np.float32).tolist())
    return x, w, y, b, vx, vw


def _run(ns, fn, F):
    fw = ns.autograd.forward_ad
    x, w, y, b, vx, vw = _leaves(ns)
    with fw.dual_level():
        out = fn(fw.make_dual(x, vx), fw.make_dual(w, vw), y, b, F)
        tangent = fw.unpack_dual(out).tangent
        name = type(tangent.grad_fn).__name__
        if tangent.requires_grad:
            (tangent * ns.arange(1.0, tangent.numel() + 1).view(tangent.shape)).sum().backward()
    # NOTE: torch's gradient through a zero tangent is an "efficient zero" tensor: add it to
    # real zeros to read it
    grads = [
        None if t.grad is None else ns.zeros(t.shape).add(t.grad).tolist() for t in (x, w, y, b)
    ]
    return name, tangent.tolist(), grads


@pytest.mark.parametrize("op", sorted(OPS))
def test_tangent_history_matches_torch(op):
    torch = pytest.importorskip("torch")
    ours = _run(T, OPS[op], DF)
    theirs = _run(torch, OPS[op], torch.nn.functional)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    for g_ours, g_theirs in zip(ours[2], theirs[2], strict=True):
        if g_theirs is None:
            assert g_ours is None
        else:
            np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-4, atol=1e-5)


def _mlp_tangent_sum(x, w1, w2, v):
    fw = T.autograd.forward_ad
    with fw.dual_level():
        h = DF.linear(fw.make_dual(x, v), w1).tanh()
        out = DF.mse_loss(DF.linear(h, w2), T.zeros(4, 1))
        return fw.unpack_dual(out).tangent


def test_gradient_of_a_jvp_matches_finite_differences():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((4, 3))
    w1 = T.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    w2 = T.tensor(rng.standard_normal((1, 5)), requires_grad=True)
    v = T.tensor(rng.standard_normal((4, 3)))
    x = T.tensor(xs, requires_grad=True)
    t = _mlp_tangent_sum(x, w1, w2, v)
    # torch copies a reduced loss's tangent onto zeros of the loss's layout (_set_fw_grad)
    assert type(t.grad_fn).__name__ == "CopyBackwards"
    t.backward()
    eps = 1e-6
    for leaf in (x, w1):
        base = leaf.detach().numpy().copy()
        fd = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            vals = []
            for sign in (1, -1):
                shifted = base.copy()
                shifted[idx] += sign * eps
                args = {"x": x, "w1": w1}
                args["x" if leaf is x else "w1"] = T.tensor(shifted)
                with T.no_grad():
                    vals.append(_mlp_tangent_sum(args["x"], args["w1"], w2, v).item())
            fd[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(leaf.grad.numpy(), fd, rtol=1e-5, atol=1e-7)


def test_an_op_without_a_differentiable_rule_refuses_on_backward():
    fw = T.autograd.forward_ad
    x = T.randn(4, requires_grad=True)
    with fw.dual_level():
        out = fw.make_dual(x, T.ones(4)).cumsum(0)
        tangent = fw.unpack_dual(out).tangent
    assert tangent.requires_grad
    assert tangent.tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(NotImplementedError, match="forward-AD tangent"):
        tangent.sum().backward()


def test_no_history_without_requires_grad():
    fw = T.autograd.forward_ad
    with fw.dual_level():
        out = fw.make_dual(T.randn(3), T.ones(3)).tanh() * 2
        tangent = fw.unpack_dual(out).tangent
    assert tangent.grad_fn is None and not tangent.requires_grad


@pytest.mark.parametrize("op", ["inplace", "unbind"])
def test_ops_without_a_history_rule_are_refused_not_silently_historyless(op):
    # torch gives these tangents a grad_fn; a tangent without one would be a silent difference
    fwAD = T.autograd.forward_ad

    w = T.randn(3, requires_grad=True)
    with fwAD.dual_level():
        x = fwAD.make_dual(T.randn(3), T.ones(3)) * w
        with pytest.raises(NotImplementedError, match="forward AD: .* requires grad"):
            x.relu_() if op == "inplace" else x.unbind()
        with T.no_grad():  # no history needed: the fast path, torch's values
            y = fwAD.make_dual(T.tensor([-1.0, 2.0]), T.tensor([5.0, 7.0]))
            assert fwAD.unpack_dual(y.relu_()).tangent.tolist() == [0.0, 7.0]


def test_forward_over_reverse_is_refused_not_partial():
    # torch carries the tangent of tanh's saved result into the create_graph gradient
    # (tangent -0.7269, ...); detachviz's formulas would drop that part (the tangent was None)
    from detachviz.engine.autograd import FORWARD_OVER_REVERSE

    torch, fwAD = T, T.autograd.forward_ad
    p = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        x = fwAD.make_dual(p, torch.ones(3))
        y = torch.tanh(x)
        with pytest.raises(NotImplementedError) as err:
            torch.autograd.grad(y.sum(), x, create_graph=True)
        assert str(err.value) == FORWARD_OVER_REVERSE
