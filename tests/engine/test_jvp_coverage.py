"""Every backward-node class has forward-mode (JVP) rules, or is on an explicit list of ops torch
itself has no forward AD for; the rules written for the as_strided pair agree with finite
differences."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch
from detachviz.engine import deferred, rules
from detachviz.engine import forward_ad as fwad
from detachviz.engine.node import NODE_CLASSES

deferred.load_all()  # the op families imported on first use define their node classes too

# torch name -> why there is no JVP rule (torch raises "Trying to use forward AD with ... that
# does not support it" for these too). Empty today: every op the engine has, torch can
# forward-differentiate. An entry must name a real node class that indeed has no rule.
NO_FORWARD_AD: dict[str, str] = {
    # rnn helper: torch's derivatives.yaml gives mkldnn_rnn_layer no forward-mode formula
    "MkldnnRnnLayerBackward0": "the fused oneDNN LSTM layer (torch: not implemented)",
    "ScaledDotProductFlashAttentionForCpuBackward0": "the fused CPU flash attention kernel",
    "PackPaddedSequenceBackward0": "_pack_padded_sequence (torch: not implemented)",
    # mathops: torch's in-place inverse hyperbolics have no derivative at all
    "AsinhBackward1": "asinh_ (torch: not implemented)",
    "AcoshBackward1": "acosh_ (torch: not implemented)",
    "AtanhBackward1": "atanh_ (torch: not implemented)",
}


def _covered(cls: type) -> bool:
    # a multi-output view's rule is its geometry (`jvp_view`): each output's tangent is the
    # same view of the input's tangent
    return cls._jvp is not None or bool(cls._jvp_view)


@pytest.mark.parametrize("name", sorted(NODE_CLASSES))
def test_every_node_class_has_jvp_rules_or_is_listed(name: str) -> None:
    cls = NODE_CLASSES[name]
    assert _covered(cls) or name in NO_FORWARD_AD, f"{name} has no JVP rule"


def test_the_registry_holds_every_op_family() -> None:
    # the coverage test above is only as good as the registry it walks
    for expected in ("AddBackward0", "MmBackward0", "CatBackward0", "NllLossBackward0"):
        assert expected in NODE_CLASSES
    assert len(NODE_CLASSES) >= 80


def test_listed_ops_really_have_no_rule() -> None:
    for name in NO_FORWARD_AD:
        assert name in NODE_CLASSES and not _covered(NODE_CLASSES[name])


def _fd(f, x: np.ndarray, t: np.ndarray, eps: float = 1e-6) -> np.ndarray:  # noqa: ANN001
    return (f(x + eps * t) - f(x - eps * t)) / (2 * eps)


def test_as_strided_jvp_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    x0, t0 = rng.standard_normal(12), rng.standard_normal(12)
    size, stride, offset = (2, 3), (4, 1), 1

    def f(a: np.ndarray) -> np.ndarray:
        return rules.as_strided(torch.tensor(a), size, stride, offset)._data

    with fwad.dual_level():
        x = fwad.make_dual(torch.tensor(x0), torch.tensor(t0))
        out = rules.as_strided(x, size, stride, offset)
        tangent = fwad.unpack_dual(out).tangent
    assert tangent is not None
    np.testing.assert_allclose(tangent.numpy(), _fd(f, x0, t0), rtol=1e-6, atol=1e-8)


def test_as_strided_backward_jvp_matches_finite_differences() -> None:
    rng = np.random.default_rng(4)
    g0, t0 = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    base, size, stride, offset = (3, 4), (2, 3), (4, 1), 1

    def f(a: np.ndarray) -> np.ndarray:
        return rules.TT.as_strided_backward(torch.tensor(a), base, size, stride, offset)._data

    with fwad.dual_level():
        g = fwad.make_dual(torch.tensor(g0), torch.tensor(t0))
        out = rules.TT.as_strided_backward(g, base, size, stride, offset)
        tangent = fwad.unpack_dual(out).tangent
    assert tangent is not None
    np.testing.assert_allclose(tangent.numpy(), _fd(f, g0, t0), rtol=1e-6, atol=1e-8)
