"""Binary cross-entropy ops: values, gradients (finite differences, torch), nodes, tangents."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.nn.functional as DF
import detachviz.torch as dv
from detachviz.torch.autograd import forward_ad as fwad

X = np.array([[0.2, 0.7, 0.5], [0.9, 0.1, 0.4]])  # probabilities
LOGITS = np.array([[0.5, -1.0, 2.0], [-3.0, 0.0, 1.5]])
T = np.array([[1.0, 0.0, 0.3], [0.0, 1.0, 0.8]])
W = np.array([1.0, 2.0, 0.5])
PW = np.array([3.0, 1.0, 0.5])
REDUCTIONS = ["none", "mean", "sum"]

# name -> (functional name, input values, kwargs holding numpy weights)
CASES = {
    "bce": ("binary_cross_entropy", X, {}),
    "bce-weight": ("binary_cross_entropy", X, {"weight": W}),
    "logits": ("binary_cross_entropy_with_logits", LOGITS, {}),
    "logits-weight": ("binary_cross_entropy_with_logits", LOGITS, {"weight": W}),
    "logits-pos-weight": ("binary_cross_entropy_with_logits", LOGITS, {"pos_weight": PW}),
    "logits-both": ("binary_cross_entropy_with_logits", LOGITS, {"weight": W, "pos_weight": PW}),
}
NODE = {
    "binary_cross_entropy": "BinaryCrossEntropyBackward0",
    "binary_cross_entropy_with_logits": "BinaryCrossEntropyWithLogitsBackward0",
}


def _call(ns, fn_mod, case, x, t, red, **tensor_kw):
    name, _, kw = CASES[case]
    args = {k: ns.tensor(v, dtype=ns.float64) for k, v in kw.items()}
    xs = x if not isinstance(x, np.ndarray) else ns.tensor(x, dtype=ns.float64)
    ts = t if not isinstance(t, np.ndarray) else ns.tensor(t, dtype=ns.float64)
    return getattr(fn_mod, name)(xs, ts, reduction=red, **args)


def _fd(f, x, cot, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = ((np.asarray(f(xp)) - np.asarray(f(xm))) * cot).sum() / (2 * eps)
    return g


@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_gradients_match_finite_differences(case, red):
    _, x0, _ = CASES[case]
    x = dv.tensor(x0, dtype=dv.float64, requires_grad=True)
    t = dv.tensor(T, dtype=dv.float64, requires_grad=True)
    out = _call(dv, DF, case, x, t, red)
    assert type(out.grad_fn).__name__ == NODE[CASES[case][0]]
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    cot = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
    out.backward(dv.tensor(cot, dtype=dv.float64))
    fx = _fd(lambda v: _call(dv, DF, case, v, T, red).numpy(), x0, cot)
    ft = _fd(lambda v: _call(dv, DF, case, x0, v, red).numpy(), T, cot)
    np.testing.assert_allclose(x.grad.numpy(), fx, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(t.grad.numpy(), ft, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_values_gradients_and_double_backward_match_torch(case, red):
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("torch.nn.functional")
    _, x0, _ = CASES[case]
    res = []
    for ns, mod in ((dv, DF), (torch, tf)):
        x = ns.tensor(x0, dtype=ns.float64, requires_grad=True)
        t = ns.tensor(T, dtype=ns.float64, requires_grad=True)
        out = _call(ns, mod, case, x, t, red)
        (gx,) = ns.autograd.grad(out.sum(), x, create_graph=True)
        (ggx,) = ns.autograd.grad((gx * gx).sum(), x)
        res.append([out.detach().numpy(), gx.detach().numpy(), ggx.numpy()])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("case", ["bce-weight", "logits-both"])
def test_forward_ad_matches_torch(case):
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("torch.nn.functional")
    _, x0, _ = CASES[case]
    res = []
    for ns, mod, fw in ((dv, DF, fwad), (torch, tf, torch.autograd.forward_ad)):
        with fw.dual_level():
            x = fw.make_dual(ns.tensor(x0, dtype=ns.float64), ns.ones(2, 3, dtype=ns.float64))
            out = _call(ns, mod, case, x, T, "sum")
            res.append(fw.unpack_dual(out).tangent.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-6)


def test_saved_attributes_and_modules():
    x = dv.tensor(LOGITS, requires_grad=True)
    t = dv.tensor(T, dtype=dv.float32)
    loss = dv.nn.BCEWithLogitsLoss(pos_weight=dv.tensor(PW, dtype=dv.float32))(x, t)
    fn = loss.grad_fn
    assert fn._saved_reduction == 1 and fn._saved_weight is None
    assert fn._saved_pos_weight.tolist() == PW.tolist()
    assert dv.nn.BCELoss(reduction="sum")(x.sigmoid(), t).grad_fn.name() == (
        "BinaryCrossEntropyBackward0"
    )


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: DF.binary_cross_entropy(dv.tensor([1.5]), dv.tensor([1.0])),
            RuntimeError,
            "all elements of input should be between 0 and 1",
        ),
        (
            lambda: DF.binary_cross_entropy_with_logits(dv.tensor([1.0, 2.0]), dv.tensor([1.0])),
            ValueError,
            "must be the same as input size",
        ),
        (
            lambda: DF.binary_cross_entropy(
                dv.tensor([0.5]), dv.tensor([1.0]), weight=dv.tensor([1.0], requires_grad=True)
            ),
            RuntimeError,
            "not differentiable with respect to argument 'weight'",
        ),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
