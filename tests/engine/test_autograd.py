"""Autograd behaviour: seeds, accumulation, hooks, retain_grad, autograd.grad, grad modes,
long chains."""

from __future__ import annotations

import gc
import tracemalloc
import warnings

import pytest

import detachviz.torch as torch


def test_seed_attached_and_detached():
    a = torch.ones(20, requires_grad=True)
    ((a**4) + (a**6)).sum().backward()
    assert a.grad.tolist() == [10.0] * 20
    a = torch.full((20,), 2.0, requires_grad=True)
    ((a**4) + (a**6)).sum().backward()
    assert a.grad.tolist() == [224.0] * 20
    a = torch.ones(20, requires_grad=True)
    ((a**3) + (a.detach() ** 6)).sum().backward()
    assert a.grad.tolist() == [3.0] * 20
    a = torch.full((20,), 2.0, requires_grad=True)
    ((a**3) + (a.detach() ** 6)).sum().backward()
    assert a.grad.tolist() == [12.0] * 20


def test_seed_data_zero_gives_torchs_silent_gradient():
    m = torch.arange(5.0, requires_grad=True)
    n = m**2
    m.data.zero_()
    n.sum().backward()
    assert m.grad.tolist() == [0.0] * 5


def test_data_footgun_from_semantics_doc():
    x = torch.ones(1, requires_grad=True)
    y = x * x
    x.data *= 100
    y.backward()
    assert x.grad.tolist() == [200.0]


def _two_nets(cut):
    wa = torch.ones(3, requires_grad=True)
    wb = torch.ones(3, requires_grad=True)
    x = torch.arange(3.0)
    y = x * wa
    if cut == "detach":
        z = (y.detach() * wb).sum()
    else:
        y.detach_()
        z = (y * wb).sum()
    z.backward()
    return wa, wb


@pytest.mark.parametrize("cut", ["detach", "detach_"])
def test_seed_two_networks(cut):
    wa, wb = _two_nets(cut)
    assert wa.grad is None
    assert wb.grad.tolist() == [0.0, 1.0, 2.0]


def test_grads_accumulate_in_place():
    x = torch.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert x.grad is g and g.tolist() == [6.0, 6.0]


def test_backward_with_gradient_and_retain_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x**2
    y.backward(torch.tensor([1.0, 0.5]), retain_graph=True)
    y.backward(torch.tensor([1.0, 0.5]))
    assert x.grad.tolist() == [4.0, 4.0]


def test_autograd_backward_function():
    x = torch.ones(2, requires_grad=True)
    torch.autograd.backward([(x * 2).sum(), (x * 3).sum()])
    assert x.grad.tolist() == [5.0, 5.0]


def test_retain_grad_and_nonleaf_grad_warning():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad
    z = y * y
    z.sum().backward()
    assert y.grad.tolist() == [4.0, 4.0]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert z.grad is None
    assert len(w) == 1 and "not a leaf Tensor" in str(w[0].message)


def test_hooks_replace_gradient_and_remove():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    h = y.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    hx = x.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert seen == [[1.0, 1.0]] and x.grad.tolist() == [21.0, 21.0]
    h.remove()
    hx.remove()
    x.grad = None
    y = x * 2
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_retain_grad_sees_hooked_gradient():
    x = torch.ones(1, requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.register_hook(lambda g: g * 3)
    y.backward()
    assert y.grad.tolist() == [3.0] and x.grad.tolist() == [3.0]


def test_autograd_grad_and_unused():
    x = torch.ones(3, requires_grad=True)
    u = torch.ones(2, requires_grad=True)
    (gx, gu) = torch.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    assert gx.tolist() == [2.0] * 3 and gu is None
    assert x.grad is None
    (_, gu) = torch.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True)
    assert gu.tolist() == [0.0, 0.0]


def test_autograd_grad_of_nonleaf_input():
    x = torch.ones(2, requires_grad=True)
    h = x * 3
    (g,) = torch.autograd.grad((h * h).sum(), h)
    assert g.tolist() == [6.0, 6.0]


def test_second_derivative_with_create_graph():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**3
    (dy,) = torch.autograd.grad(y, x, create_graph=True)
    assert dy.item() == 12.0 and dy.requires_grad
    (d2,) = torch.autograd.grad(dy, x)
    assert d2.item() == 12.0
    x.grad = None
    dy2 = torch.autograd.grad(x.sin() * x, x, create_graph=True)[0]
    dy2.backward()
    assert abs(x.grad.item() - (2 * float(x.cos()) - 2.0 * float(x.sin()))) < 1e-6


def test_create_graph_backward_accumulates_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x**2).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.tolist() == [2.0, 4.0]


def test_no_grad_context_and_decorators():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = x * 2
        with torch.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad

    @torch.no_grad()
    def f(t):
        return t * 2

    @torch.no_grad
    def f2(t):
        return t * 2

    assert not f(x).requires_grad and not f2(x).requires_grad
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()
    with torch.inference_mode():
        assert not (x * 2).requires_grad


def test_optimizer_style_update_under_no_grad():
    w = torch.ones(2, requires_grad=True)
    (w * 3).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    assert w.is_leaf and w._version == 1
    assert [round(v, 6) for v in w.tolist()] == [0.7, 0.7]


def test_requires_grad_and_leaf_rules():
    x = torch.ones(2)
    assert x.is_leaf and not x.requires_grad
    x.requires_grad_()
    y = x * 2
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert y.detach().is_leaf and not y.detach().requires_grad
    assert torch.ones(2, dtype=torch.long).float().requires_grad is False


def test_long_chain_backward_is_iterative_and_frees_saved():
    x = torch.ones(20, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0001
    y.sum().backward()
    assert abs(x.grad[0].item() - 1.0001**100_000) / 1.0001**100_000 < 1e-2
    with pytest.raises(RuntimeError, match="second time"):
        # MulBackward0 saved `other` (the scalar): freed after the first backward
        y.grad_fn._saved_other  # noqa: B018


def test_long_chain_memory_is_bounded():
    gc.collect()
    tracemalloc.start()
    x = torch.ones(20, requires_grad=True)
    y = x
    for _ in range(3_000):
        y = y * x
    peak_forward = tracemalloc.get_traced_memory()[1]
    y.sum().backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # the backward pass must not need more than the graph itself again
    assert peak < 2.5 * peak_forward


def test_grad_fn_for_views_of_nonleaf_after_inplace():
    a = torch.ones(4, requires_grad=True)
    b = a * 2
    v = b[1:3]
    v.mul_(3)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert b._version == v._version == 1
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 6.0, 6.0, 2.0]
