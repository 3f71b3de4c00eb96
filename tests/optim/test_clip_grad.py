"""torch.nn.utils: clip_grad_norm_ / clip_grad_value_ / parameters_to_vector /
vector_to_parameters against real torch."""

from __future__ import annotations

import numpy as np
import pytest

W = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
B = np.random.default_rng(2).standard_normal(3).astype(np.float32)


def _grads(ns):
    w = ns.tensor(W.copy(), requires_grad=True)
    b = ns.tensor(B.copy(), requires_grad=True)
    w.grad = ns.tensor(W * 3)
    b.grad = ns.tensor(B * -2)
    return [w, b]


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3])
@pytest.mark.parametrize("max_norm", [0.5, 1000.0])
def test_clip_grad_norm_scales_and_returns_the_total_norm(T, torch, norm_type, max_norm):
    ours, theirs = _grads(T), _grads(torch)
    n = T.nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    tn = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert n.shape == tn.shape == ()
    np.testing.assert_allclose(n.item(), tn.item(), rtol=1e-6)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_nonfinite_norm_raises_torchs_error(T, torch):
    msgs = []
    for ns in (T, torch):
        ps = _grads(ns)
        ps[0].grad[0, 0] = float("nan")
        with pytest.raises(RuntimeError) as e:
            ns.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_clip_value_and_vector_round_trip(T, torch):
    outs = []
    for ns in (T, torch):
        ps = _grads(ns)
        ns.nn.utils.clip_grad_value_(ps, 0.7)
        v = ns.nn.utils.parameters_to_vector(ps)
        names = [v.grad_fn.name(), v.grad_fn.next_functions[0][0].name()]
        ns.nn.utils.vector_to_parameters(v.detach() * 2, ps)
        outs.append((ps[0].grad.tolist(), ps[1].grad.tolist(), names, ps[1].tolist()))
    assert outs[0][2:] == outs[1][2:]
    np.testing.assert_allclose(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1])


def test_foreach_is_refused(T):
    with pytest.raises(NotImplementedError, match="foreach=True"):
        T.nn.utils.clip_grad_norm_(_grads(T), 1.0, foreach=True)
