"""The smooth/robust, divergence, distance and margin losses (values, gradients and forward
tangents vs finite differences and vs torch; double backward through the fused nodes), the
legacy size_average/reduce mapping, Linear's dtype check, Module hooks and state_dict."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from nn_helpers import to_numpy

from detachviz import nn
from detachviz.nn import functional as F

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4))
Y = RNG.normal(size=(3, 4))
SIGNS = np.where(RNG.normal(size=(3, 4)) > 0, 1.0, -1.0)

# name -> call, given a namespace, its functional module and two float64 tensors (a, b)
CALLS = {
    "smooth_l1": lambda ns, f, a, b: f.smooth_l1_loss(a, b, beta=0.7),
    "smooth_l1_sum": lambda ns, f, a, b: f.smooth_l1_loss(a, b, reduction="sum", beta=1.5),
    "huber": lambda ns, f, a, b: f.huber_loss(a, b, delta=0.6),
    "huber_none": lambda ns, f, a, b: f.huber_loss(a, b, reduction="none", delta=1.2),
    "huber_weighted": lambda ns, f, a, b: f.huber_loss(
        a, b, delta=0.5, weight=ns.tensor(np.abs(Y), dtype=ns.float64)
    ),
    "mse_weighted": lambda ns, f, a, b: f.mse_loss(
        a, b, weight=ns.tensor(np.abs(Y), dtype=ns.float64)
    ),
    "l1_weighted": lambda ns, f, a, b: f.l1_loss(
        a, b, weight=ns.tensor(np.abs(X), dtype=ns.float64)
    ),
    "soft_margin": lambda ns, f, a, b: f.soft_margin_loss(a, ns.tensor(SIGNS)),
    "kl_batchmean": lambda ns, f, a, b: f.kl_div(
        f.log_softmax(a, 1),
        ns.tensor(np.exp(Y) / np.exp(Y).sum(1, keepdims=True)),
        reduction="batchmean",
    ),
    "kl_log_target": lambda ns, f, a, b: f.kl_div(
        f.log_softmax(a, 1), f.log_softmax(b, 1), reduction="sum", log_target=True
    ),
    "cosine": lambda ns, f, a, b: f.cosine_similarity(a, b),
    "normalize": lambda ns, f, a, b: f.normalize(a, p=3.0, dim=0),
    "pairwise": lambda ns, f, a, b: f.pairwise_distance(a, b, p=1.5),
    "margin_ranking": lambda ns, f, a, b: f.margin_ranking_loss(a, b, ns.tensor(SIGNS), margin=0.2),
    "triplet": lambda ns, f, a, b: f.triplet_margin_loss(a, b, a * 0.5 + 1.0, margin=2.0),
    "triplet_swap": lambda ns, f, a, b: f.triplet_margin_loss(a, b, b * 2.0, margin=1.0, swap=True),
    "ce_soft_smooth": lambda ns, f, a, b: f.cross_entropy(
        a,
        f.softmax(b, 1),
        label_smoothing=0.2,
        weight=ns.tensor([1.0, 2.0, 0.5, 1.5], dtype=ns.float64),
    ),
    "ce_index_smooth": lambda ns, f, a, b: f.cross_entropy(
        a,
        ns.tensor([1, -100, 3]),
        label_smoothing=0.3,
        weight=ns.tensor([1.0, 2.0, 0.5, 1.5], dtype=ns.float64),
    ),
}


def _run(ns, f, name):
    a = ns.tensor(X, dtype=ns.float64, requires_grad=True)
    b = ns.tensor(Y, dtype=ns.float64, requires_grad=True)
    out = CALLS[name](ns, f, a, b)
    ga, gb = ns.autograd.grad(out.sum(), [a, b], allow_unused=True)
    return out, ga, gb


def _graph_names(node) -> list[str]:
    names, stack = [], [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        names.append(type(n).__name__)
        stack.extend(m for m, _ in n.next_functions)
    return names


@pytest.mark.parametrize("name", sorted(CALLS))
def test_loss_gradients_match_finite_differences(T, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ga, _ = _run(T, F, name)
        eps = 1e-6
        num = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            vals = []
            for d in (eps, -eps):
                xp = X.copy()
                xp[idx] += d
                a = T.tensor(xp, dtype=T.float64)
                b = T.tensor(Y, dtype=T.float64)
                vals.append(float(CALLS[name](T, F, a, b).sum().item()))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
    np.testing.assert_allclose(to_numpy(ga), num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_loss_values_gradients_and_graph_match_torch(T, torch, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _run(T, F, name)
        theirs = _run(torch, torch.nn.functional, name)
    for o, t in zip(ours, theirs):
        assert (o is None) == (t is None)
        if o is not None:
            np.testing.assert_allclose(to_numpy(o), to_numpy(t), rtol=1e-10, atol=1e-12)
    assert _graph_names(ours[0].grad_fn) == _graph_names(theirs[0].grad_fn)


@pytest.mark.parametrize("name", ["smooth_l1", "huber_none", "soft_margin", "pairwise"])
def test_fused_nodes_differentiate_twice_like_torch(T, torch, name: str) -> None:
    def second(ns, f):
        a = ns.tensor(X, dtype=ns.float64, requires_grad=True)
        b = ns.tensor(Y, dtype=ns.float64)
        out = CALLS[name](ns, f, a, b).sum()
        (g,) = ns.autograd.grad(out, a, create_graph=True)
        (gg,) = ns.autograd.grad((g * g).sum(), a)
        return to_numpy(g), to_numpy(gg)

    for o, t in zip(second(T, F), second(torch, torch.nn.functional)):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["smooth_l1", "huber", "soft_margin", "pairwise", "triplet"])
def test_forward_tangents_match_finite_differences(T, name: str) -> None:
    fwad = T.autograd.forward_ad
    v = RNG.normal(size=X.shape)
    with fwad.dual_level():
        a = fwad.make_dual(T.tensor(X, dtype=T.float64), T.tensor(v, dtype=T.float64))
        out = CALLS[name](T, F, a, T.tensor(Y, dtype=T.float64))
        tangent = to_numpy(fwad.unpack_dual(out).tangent)
    eps = 1e-6

    def f(x):
        return to_numpy(CALLS[name](T, F, T.tensor(x), T.tensor(Y, dtype=T.float64)))

    np.testing.assert_allclose(tangent, (f(X + eps * v) - f(X - eps * v)) / (2 * eps), rtol=1e-5)


def test_fused_nodes_save_torch_attributes(T) -> None:
    a = T.tensor(X, requires_grad=True)
    b = T.tensor(Y)
    sl1 = F.smooth_l1_loss(a, b, beta=0.5)
    assert (sl1.grad_fn._saved_beta, sl1.grad_fn._saved_reduction) == (0.5, 1)
    hub = F.huber_loss(a, b, reduction="sum", delta=0.7)
    assert (hub.grad_fn._saved_delta, hub.grad_fn._saved_reduction) == (0.7, 2)
    assert len(F.soft_margin_loss(a, b).grad_fn.next_functions) == 1
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(a, T.tensor(Y, requires_grad=True))


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"size_average": False}, "sum"),
        ({"reduce": False}, "none"),
        ({"size_average": True}, "mean"),
        ({"size_average": False, "reduce": False}, "none"),
        ({"reduce": True, "size_average": False, "reduction": "mean"}, "sum"),
    ],
)
def test_legacy_size_average_and_reduce_map_onto_reduction(kw, expected: str) -> None:
    with pytest.warns(UserWarning, match=f"please use reduction='{expected}' instead"):
        assert nn.MSELoss(**kw).reduction == expected
    with pytest.warns(UserWarning):
        assert nn.KLDivLoss(**kw).reduction == expected


def test_legacy_arguments_change_the_functional_result(T) -> None:
    a = T.tensor(X)
    b = T.tensor(Y)
    with pytest.warns(UserWarning):
        total = F.mse_loss(a, b, size_average=False)
    np.testing.assert_allclose(total.item(), ((X - Y) ** 2).sum(), rtol=1e-6)
    with pytest.warns(UserWarning):
        assert tuple(F.l1_loss(a, b, reduce=False).shape) == (3, 4)


def test_nll_weight_of_another_dtype_is_refused_as_torch(T) -> None:
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        F.cross_entropy(T.tensor(X, dtype=T.float64), T.tensor([0, 1, 2]), weight=T.ones(4))


def test_linear_refuses_a_mixed_dtype_batch_with_torch_message(T) -> None:
    layer = nn.Linear(4, 2)
    with pytest.raises(
        RuntimeError, match="mat1 and mat2 must have the same dtype, but got Double and Float"
    ):
        layer(T.tensor(X, dtype=T.float64))
    with pytest.raises(
        RuntimeError, match="expected m1 and m2 to have the same dtype, but got: double != float"
    ):
        nn.Linear(4, 2, bias=False)(T.tensor(X, dtype=T.float64))


def test_module_to_refuses_devices_other_than_the_cpu() -> None:
    layer = nn.Linear(2, 2)
    assert layer.to("cpu") is layer
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        layer.to("cuda")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        layer.cuda()
    with pytest.raises(NotImplementedError, match="device 'meta' is not supported"):
        nn.Linear(2, 2, device="meta")


def test_forward_hooks_run_in_torch_order_and_replace_values(T) -> None:
    layer = nn.Linear(4, 2)
    log: list[str] = []
    layer.register_forward_hook(lambda m, i, o: log.append("after"))
    layer.register_forward_hook(lambda m, i, o: log.append("first"), prepend=True)
    pre = layer.register_forward_pre_hook(lambda m, i: (i[0] * 0,))
    out = layer(T.tensor(X, dtype=T.float32))
    assert log == ["first", "after"]
    np.testing.assert_allclose(to_numpy(out), np.tile(to_numpy(layer.bias), (3, 1)))
    pre.remove()
    assert len(layer._forward_pre_hooks) == 0


def test_always_call_forward_hook_runs_when_forward_raises(T) -> None:
    layer = nn.Linear(4, 2)
    seen: list[object] = []
    layer.register_forward_hook(lambda m, i, o: seen.append(o), always_call=True)
    with pytest.raises(RuntimeError):
        layer(T.ones(3, 5))
    assert seen == [None]


def test_full_backward_hook_sees_and_replaces_grad_input(T) -> None:
    relu = nn.ReLU()
    seen = []

    def hook(m, grad_input, grad_output):
        seen.append((to_numpy(grad_input[0]), to_numpy(grad_output[0])))
        return (grad_input[0] * 3,)

    relu.register_full_backward_hook(hook)
    x = T.tensor(X, requires_grad=True)
    y = relu(x)
    assert type(y.grad_fn).__name__ == "BackwardHookFunctionBackward"
    y.sum().backward()
    gin, gout = seen[0]
    np.testing.assert_allclose(gout, np.ones_like(X))
    np.testing.assert_allclose(gin, (X > 0).astype(float))
    np.testing.assert_allclose(to_numpy(x.grad), 3 * (X > 0))


def test_mixing_legacy_and_full_backward_hooks_is_refused() -> None:
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        layer.register_backward_hook(lambda m, gi, go: None)


def test_state_dict_leaves_out_non_persistent_buffers_and_reports_size_mismatch(T) -> None:
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.register_buffer("kept", T.zeros(2))
            self.register_buffer("scratch", T.zeros(2), persistent=False)

    net = Net()
    assert list(net.state_dict()) == ["kept", "fc.weight", "fc.bias"]
    assert dict(net.state_dict()._metadata) == {"": {"version": 1}, "fc": {"version": 1}}
    with pytest.raises(RuntimeError) as err:
        net.load_state_dict({"fc.weight": T.zeros(3, 2)})
    assert str(err.value) == (
        "Error(s) in loading state_dict for Net:\n\t"
        'Missing key(s) in state_dict: "kept", "fc.bias". \n\t'
        "size mismatch for fc.weight: copying a param with shape torch.Size([3, 2]) from "
        "checkpoint, the shape in current model is torch.Size([2, 2])."
    )
    result = net.load_state_dict({"fc.bias": T.ones(2), "extra": T.ones(1)}, strict=False)
    assert result.missing_keys == ["kept", "fc.weight"]
    assert result.unexpected_keys == ["extra"]
    np.testing.assert_allclose(to_numpy(net.fc.bias), [1.0, 1.0])
