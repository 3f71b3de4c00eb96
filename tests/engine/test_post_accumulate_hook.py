"""Tensor.register_post_accumulate_grad_hook: when it runs, what it sees, and its errors."""

from __future__ import annotations

import pytest

import detachviz.torch as dv


def _run(ns):
    """The same hook sequence on a torch namespace; returns what the hook logged."""
    w = ns.tensor([1.0, 2.0], requires_grad=True)
    log = []
    handle = w.register_post_accumulate_grad_hook(lambda p: log.append(p.grad.tolist()))
    (w * 3).sum().backward()
    ns.autograd.grad((w * 2).sum(), w)  # writes no .grad: the hook must not run
    (w * 2).sum().backward(inputs=[w])
    handle.remove()
    (w * 2).sum().backward()
    return log


def test_runs_after_accumulation_only_for_backward():
    assert _run(dv) == [[3.0, 3.0], [5.0, 5.0]]
    torch = pytest.importorskip("torch")
    assert _run(torch) == _run(dv)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: dv.ones(2), "cannot register a hook on a tensor that doesn't require gradient"),
        (
            lambda: dv.ones(2, requires_grad=True) * 2,
            "post accumulate grad hooks cannot be registered on non-leaf tensors",
        ),
    ],
)
def test_registration_errors(make, message):
    with pytest.raises(RuntimeError, match=message):
        make().register_post_accumulate_grad_hook(lambda p: None)


def test_hook_returning_a_tensor_is_refused():
    w = dv.tensor([1.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(0))
    with pytest.raises(RuntimeError, match="should return None"):
        (w * 3).sum().backward()
