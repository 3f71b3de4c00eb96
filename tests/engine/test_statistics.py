"""std / var / norm (StdBackward0, VarBackward0, LinalgVectorNormBackward0) and isclose."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as dv
from detachviz.torch.autograd import forward_ad as fwad

X = np.array([[1.0, -2.0, 4.0], [7.0, 0.5, -1.0]])
TIES = np.array([[3.0, -3.0, 1.0], [0.0, 0.0, 0.0]])  # tied maxima, an all-zero row

# name -> (call on a tensor, torch's node name)
CASES = {
    "std": (lambda t: t.std(), "StdBackward0"),
    "std-dim": (lambda t: t.std(dim=1), "StdBackward0"),
    "std-keepdim-biased": (lambda t: t.std(0, False, True), "StdBackward0"),
    "std-correction": (lambda t: t.std(dim=(0, 1), correction=0), "StdBackward0"),
    "var": (lambda t: t.var(), "VarBackward0"),
    "var-biased": (lambda t: t.var(unbiased=False), "VarBackward0"),
    "var-dim-keepdim": (lambda t: t.var(1, keepdim=True), "VarBackward0"),
    "var-false": (lambda t: t.var(False), "VarBackward0"),
    "norm": (lambda t: t.norm(), "LinalgVectorNormBackward0"),
    "norm-dim": (lambda t: t.norm(dim=1), "LinalgVectorNormBackward0"),
    "norm-1": (lambda t: t.norm(1), "LinalgVectorNormBackward0"),
    "norm-3-keepdim": (lambda t: t.norm(3, dim=0, keepdim=True), "LinalgVectorNormBackward0"),
    "norm-half": (lambda t: t.norm(0.5, dim=1), "LinalgVectorNormBackward0"),
    "norm-inf": (lambda t: t.norm(float("inf"), dim=1), "LinalgVectorNormBackward0"),
    "torch-norm": (lambda t: t.norm(p="fro", dim=(0, 1)), "LinalgVectorNormBackward0"),
}


def _values(t) -> np.ndarray:
    """Values of a gradient; torch's all-zero (ZeroTensor) results have no storage."""
    try:
        return np.asarray(t.tolist())
    except RuntimeError:
        return np.zeros(tuple(t.shape))


def _fd(f, x, cot, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = ((np.asarray(f(xp)) - np.asarray(f(xm))) * cot).sum() / (2 * eps)
    return g


@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case):
    fn, node = CASES[case]
    x = dv.tensor(X, dtype=dv.float64, requires_grad=True)
    out = fn(x)
    assert out.grad_fn.name() == node
    cot = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
    out.backward(dv.tensor(cot, dtype=dv.float64))
    expected = _fd(lambda v: fn(dv.tensor(v, dtype=dv.float64)).numpy(), X, cot)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("values", [X, TIES], ids=["plain", "ties-and-zeros"])
@pytest.mark.parametrize("case", list(CASES))
def test_values_gradients_double_backward_and_tangents_match_torch(case, values):
    torch = pytest.importorskip("torch")
    fn, _ = CASES[case]
    res = []
    for ns, fw in ((dv, fwad), (torch, torch.autograd.forward_ad)):
        x = ns.tensor(values, dtype=ns.float64, requires_grad=True)
        out = fn(x)
        (g,) = ns.autograd.grad(out.sum(), x, create_graph=True)
        gg = ns.autograd.grad((g * g).sum(), x, allow_unused=True)[0]
        with fw.dual_level():
            d = fw.make_dual(ns.tensor(values, dtype=ns.float64), ns.ones(2, 3, dtype=ns.float64))
            tangent = fw.unpack_dual(fn(d)).tangent
        res.append([out.detach().numpy(), g.detach().numpy(), _values(gg)] + [tangent.numpy()])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6, atol=1e-9)


def test_saved_attributes_follow_torch():
    x = dv.tensor(X, requires_grad=True)
    assert (x.var().grad_fn._saved_correction, x.var().grad_fn._saved_dim) == (None, None)
    s = x.std(1)
    assert (s.grad_fn._saved_correction, s.grad_fn._saved_dim, s.grad_fn._saved_keepdim) == (
        1,
        (1,),
        False,
    )
    assert s.grad_fn._saved_result.tolist() == s.tolist()
    assert x.norm().grad_fn._saved_ord == 2


def test_errors():
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        dv.tensor([1, 2]).std()
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        dv.tensor([1, 2]).norm()
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert dv.tensor([1.0]).var().isnan().item()


@pytest.mark.parametrize(
    ("a", "b", "kw", "expected"),
    [
        ([1.0, 2.5], [1.0, 2.5000001], {}, [True, True]),
        ([1.0, 2.0], [1.1, 2.0], {}, [False, True]),
        ([1.0, 2.0], [1.1, 2.0], {"atol": 0.2}, [True, True]),
        ([float("inf"), float("nan")], [float("inf"), float("nan")], {}, [True, False]),
        ([float("nan")], [float("nan")], {"equal_nan": True}, [True]),
    ],
)
def test_isclose(a, b, kw, expected):
    out = dv.isclose(dv.tensor(a), dv.tensor(b), **kw)
    assert out.dtype is dv.bool and out.tolist() == expected
    assert dv.tensor(a).isclose(dv.tensor(b), **kw).tolist() == expected


def test_isclose_dtype_mismatch():
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        dv.isclose(dv.ones(2), dv.ones(2, dtype=dv.float64))
