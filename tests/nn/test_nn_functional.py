"""nn.functional values and gradients: against finite differences and against real torch."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import to_numpy

from detachviz import nn
from detachviz.nn import functional as F

X = np.array([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]])  # (N=2, C=3)
TARGET_VALUES = np.array([[0.0, 1.0, -1.0], [2.0, 0.5, 0.25]])
LABELS = np.array([2, 0])


def _ours(T, name, x, **kw):
    """Run loss/activation `name` on a float64 leaf of our engine; return (value, grad)."""
    xt = T.tensor(x, dtype=T.float64, requires_grad=True)
    out = _CALLS[name](T, F, xt, **kw)
    out.sum().backward()
    return to_numpy(out), to_numpy(xt.grad)


def _theirs(torch, name, x, **kw):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    out = _CALLS[name](torch, torch.nn.functional, xt, **kw)
    out.sum().backward()
    return to_numpy(out), to_numpy(xt.grad)


def _labels(ns, labels):
    return ns.tensor(labels, dtype=ns.int64)


# name -> how to call it, given a namespace (ours or torch), its functional module, an input
_CALLS = {
    "mse": lambda ns, f, x, **kw: f.mse_loss(x, ns.tensor(TARGET_VALUES, dtype=ns.float64), **kw),
    "cross_entropy": lambda ns, f, x, **kw: f.cross_entropy(x, _labels(ns, LABELS), **kw),
    "cross_entropy_1d": lambda ns, f, x, **kw: f.cross_entropy(x[0], _labels(ns, 1), **kw),
    "cross_entropy_soft": lambda ns, f, x, **kw: f.cross_entropy(
        x, ns.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], dtype=ns.float64), **kw
    ),
    "cross_entropy_weighted": lambda ns, f, x, **kw: f.cross_entropy(
        x, _labels(ns, LABELS), weight=ns.tensor([1.0, 2.0, 0.5], dtype=ns.float64), **kw
    ),
    "cross_entropy_ignore": lambda ns, f, x, **kw: f.cross_entropy(x, _labels(ns, [2, -100]), **kw),
    "nll": lambda ns, f, x, **kw: f.nll_loss(x, _labels(ns, LABELS), **kw),
    "softmax": lambda ns, f, x, **kw: f.softmax(x, dim=1) * ns.tensor([1.0, 2.0, 3.0]),
    "log_softmax": lambda ns, f, x, **kw: f.log_softmax(x, dim=0) * ns.tensor([1.0, 2.0, 3.0]),
    "relu": lambda ns, f, x, **kw: f.relu(x) * 3,
    "sigmoid": lambda ns, f, x, **kw: f.sigmoid(x),
    "tanh": lambda ns, f, x, **kw: f.tanh(x),
    "linear": lambda ns, f, x, **kw: f.linear(
        x, ns.tensor([[1.0, 2.0, 3.0]], dtype=ns.float64), ns.tensor([0.5], dtype=ns.float64)
    ),
}
CASES = [
    ("mse", {}),
    ("mse", {"reduction": "sum"}),
    ("mse", {"reduction": "none"}),
    ("cross_entropy", {}),
    ("cross_entropy", {"reduction": "sum"}),
    ("cross_entropy", {"reduction": "none"}),
    ("cross_entropy", {"label_smoothing": 0.1}),
    ("cross_entropy_1d", {}),
    ("cross_entropy_soft", {}),
    ("cross_entropy_soft", {"label_smoothing": 0.2}),
    ("cross_entropy_weighted", {}),
    ("cross_entropy_weighted", {"label_smoothing": 0.1}),
    ("cross_entropy_ignore", {}),
    ("nll", {}),
    ("nll", {"reduction": "none"}),
    ("softmax", {}),
    ("log_softmax", {}),
    ("relu", {}),
    ("sigmoid", {}),
    ("tanh", {}),
    ("linear", {}),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for n, kw in CASES]


@pytest.mark.parametrize(("name", "kw"), CASES, ids=IDS)
def test_matches_torch(T, torch, name, kw):
    value, grad = _ours(T, name, X, **kw)
    want_value, want_grad = _theirs(torch, name, X, **kw)
    np.testing.assert_allclose(value, want_value, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("name", "kw"), CASES, ids=IDS)
def test_gradient_matches_finite_differences(T, name, kw):
    _, grad = _ours(T, name, X, **kw)
    eps = 1e-6
    numeric = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        if name == "relu" and abs(X[idx]) < 1e-3:
            continue  # NOTE: relu has a kink at 0
        up, down = X.copy(), X.copy()
        up[idx] += eps
        down[idx] -= eps
        numeric[idx] = (_ours(T, name, up, **kw)[0].sum() - _ours(T, name, down, **kw)[0].sum()) / (
            2 * eps
        )
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_cross_entropy_by_hand(T):
    # log_softmax([0, 0]) = log(1/2): the loss is log 2 whatever the label
    loss = F.cross_entropy(T.zeros(1, 2, requires_grad=True), T.tensor([1]))
    assert abs(loss.item() - np.log(2)) < 1e-6


def test_mse_by_hand(T):
    loss = nn.MSELoss()(T.tensor([1.0, 3.0]), T.tensor([0.0, 0.0]))
    assert loss.item() == 5.0


def test_bad_reduction_raises(T):
    with pytest.raises(ValueError, match="banana is not a valid value for reduction"):
        F.mse_loss(T.ones(2), T.ones(2), reduction="banana")


def test_mse_warns_on_broadcasting_shapes(T):
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[2, 1\]\)\)"):
        F.mse_loss(T.ones(2), T.ones(2, 1))


# (call, what the engine must offer for torch's node name, or None when it always should)
NAMED = [
    (lambda ns, f, x: f.mse_loss(x, x.detach() * 2), "torch._C._nn.mse_loss"),
    (lambda ns, f, x: f.cross_entropy(x, _labels(ns, LABELS)), "torch._C._nn.nll_loss_nd"),
    (lambda ns, f, x: f.nll_loss(x, _labels(ns, LABELS)), "torch._C._nn.nll_loss_nd"),
    (lambda ns, f, x: f.log_softmax(x, 1), "Tensor.log_softmax"),
    (lambda ns, f, x: f.softmax(x, 1), "Tensor.softmax"),
    (lambda ns, f, x: f.relu(x), None),
    (lambda ns, f, x: f.sigmoid(x), None),
    (lambda ns, f, x: f.tanh(x), None),
]


@pytest.mark.parametrize(
    ("call", "needs"),
    NAMED,
    ids=[
        "mse_loss",
        "cross_entropy",
        "nll_loss",
        "log_softmax",
        "softmax",
        "relu",
        "sigmoid",
        "tanh",
    ],
)
def test_grad_fn_names_match_torch(T, torch, call, needs):
    """The output's grad_fn is torch's node (the fused op, not a composite)."""
    ours = call(T, F, T.tensor(X, requires_grad=True))
    theirs = call(torch, torch.nn.functional, torch.tensor(X, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name()
