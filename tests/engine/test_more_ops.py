"""max/min/amax/maximum, argmax, softmax/log_softmax/logsumexp, cat/stack/where, bmm, advanced
indexing: gradients vs finite differences (float64) and real torch, grad_fn names, ties, errors."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch

RNG = np.random.default_rng(11)


def _mask(t, a):
    return a[a > 0.0]


# name -> (f(t, *inputs), input shapes, torch's grad_fn name of the result)
OPS = {
    "max": (lambda t, a: a.max(), [(2, 3)], "MaxBackward1"),
    "min": (lambda t, a: t.min(a), [(2, 3)], "MinBackward1"),
    "max_dim": (lambda t, a: a.max(1).values, [(2, 3)], "MaxBackward0"),
    "max_dim_keep": (lambda t, a: t.max(a, dim=0, keepdim=True)[0], [(2, 3)], "MaxBackward0"),
    "min_dim_neg": (lambda t, a: a.min(-1).values, [(3, 2)], "MinBackward0"),
    "amax": (lambda t, a: a.amax(1), [(2, 3)], "AmaxBackward0"),
    "amin_dims": (lambda t, a: t.amin(a, (0, 2), keepdim=True), [(2, 2, 2)], "AminBackward0"),
    "maximum": (lambda t, a, b: t.maximum(a, b), [(2, 3), (3,)], "MaximumBackward0"),
    "minimum": (lambda t, a, b: t.minimum(a, b), [(3,), (3,)], "MinimumBackward0"),
    "max_pair": (lambda t, a, b: t.max(a, b), [(3,), (3,)], "MaximumBackward0"),
    "softmax": (lambda t, a: t.softmax(a, 1), [(2, 3)], "SoftmaxBackward0"),
    "softmax_neg": (lambda t, a: a.softmax(dim=-2), [(3, 2)], "SoftmaxBackward0"),
    "log_softmax": (lambda t, a: t.log_softmax(a, 0), [(2, 3)], "LogSoftmaxBackward0"),
    "logsumexp": (lambda t, a: t.logsumexp(a, 1), [(2, 3)], "LogsumexpBackward0"),
    "logsumexp_keep": (
        lambda t, a: a.logsumexp((0, 1), keepdim=True),
        [(2, 3)],
        "LogsumexpBackward0",
    ),
    "cat": (lambda t, a, b: t.cat([a, b * 2], 1), [(2, 3), (2, 1)], "CatBackward0"),
    "cat0_three": (lambda t, a, b: t.cat((a, b, a), dim=0), [(1, 2), (2, 2)], "CatBackward0"),
    "stack": (lambda t, a, b: t.stack([a, b]), [(3,), (3,)], "StackBackward0"),
    "stack_last": (lambda t, a, b: t.stack([a, b, a], dim=-1), [(2, 2), (2, 2)], "StackBackward0"),
    "where": (lambda t, a, b: t.where(a > 0.0, a, b), [(2, 3), (3,)], "WhereBackward0"),
    "where_scalar": (lambda t, a: t.where(a > 0.0, a, 0.5), [(4,)], "WhereBackward0"),
    "index_list": (lambda t, a: a[[1, 0, 1]], [(2, 3)], "IndexBackward0"),
    "index_long": (lambda t, a: a[:, t.tensor([2, 0, 2])], [(2, 3)], "IndexBackward0"),
    "index_mask": (lambda t, a: _mask(t, a), [(2, 3)], "IndexBackward0"),
    "index_pairs": (lambda t, a: a[[0, 1], [2, 0]], [(2, 3)], "IndexBackward0"),
    "bmm": (lambda t, a, b: t.bmm(a, b), [(2, 2, 3), (2, 3, 1)], "BmmBackward0"),
    "matmul_batched": (lambda t, a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)], "UnsafeViewBackward0"),
    "flatten": (lambda t, a: a.flatten(1) * 1.0, [(2, 2, 2)], "MulBackward0"),
    "masked_fill": (lambda t, a: a.masked_fill(a > 0.0, 0.5), [(2, 3)], "MaskedFillBackward0"),
    "masked_fill_t": (
        lambda t, a, v: a.masked_fill(a > 0.0, v),
        [(2, 3), ()],
        "MaskedFillBackward1",
    ),
    "masked_fill_": (
        lambda t, a: (a * 1).masked_fill_(a > 0.0, 2.0),
        [(3,)],
        "MaskedFillBackward0",
    ),
}


def _inputs(shapes):
    return [RNG.uniform(-1.0, 1.0, s) for s in shapes]


def _loss(t, out, w):
    return (out * t.tensor(w)).sum()


def _grads(t, f, arrays, w, create_graph=False):
    xs = [t.tensor(a, requires_grad=True) for a in arrays]
    out = f(t, *xs)
    gs = t.autograd.grad(_loss(t, out, w), xs, create_graph=create_graph, allow_unused=True)
    return xs, out, gs


def _value(f, arrays, w):
    with torch.no_grad():
        return float(_loss(torch, f(torch, *[torch.tensor(a) for a in arrays]), w))


def _out_weights(f, arrays):
    with torch.no_grad():
        shape = tuple(f(torch, *[torch.tensor(a) for a in arrays]).shape)
    return RNG.uniform(-1.0, 1.0, shape)


@pytest.mark.parametrize("name", list(OPS))
def test_gradient_matches_finite_differences(name):
    f, shapes, _ = OPS[name]
    arrays = _inputs(shapes)  # random values: no ties, so every op is differentiable here
    w = _out_weights(f, arrays)
    _, _, grads = _grads(torch, f, arrays, w)
    eps = 1e-6
    for a, g in zip(arrays, grads):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            a[idx] += eps
            hi = _value(f, arrays, w)
            a[idx] -= 2 * eps
            lo = _value(f, arrays, w)
            a[idx] += eps
            num[idx] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(OPS))
def test_gradient_value_and_grad_fn_match_torch(rt, name):
    f, shapes, grad_fn = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    _, ours_out, ours = _grads(torch, f, arrays, w)
    _, theirs_out, theirs = _grads(rt, f, arrays, w)
    assert ours_out.grad_fn.name() == theirs_out.grad_fn.name() == grad_fn
    np.testing.assert_allclose(ours_out.detach().numpy(), theirs_out.detach().numpy(), rtol=1e-12)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


DOUBLE = ["max_dim", "amax", "maximum", "softmax", "log_softmax", "logsumexp", "cat", "stack"]
DOUBLE += ["where", "index_mask", "bmm", "max"]


@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_matches_torch(rt, name):
    """create_graph=True: the rules rerun on tensors and are differentiable themselves."""
    f, shapes, _ = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    res = []
    for t in (torch, rt):
        xs, _, gs = _grads(t, f, arrays, w, create_graph=True)
        second = sum(((g * g.sin()).sum() for g in gs if g is not None and g.requires_grad), 0.0)
        if isinstance(second, float):
            res.append([None for _ in xs])
            continue
        hs = t.autograd.grad(second, xs, allow_unused=True)
        res.append([None if h is None else h.numpy() for h in hs])
    for a, b in zip(*res):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


# --- ties (NOTE: torch's all-reduce max/min share evenly; the dim overloads pick one index) ---
TIES = {
    "max_all": (lambda t, x: x.max(), [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    "min_all": (lambda t, x: x.min(), [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
    "max_dim": (lambda t, x: x.max(1).values.sum(), [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    "amax_dim": (lambda t, x: x.amax(1).sum(), [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]),
    "maximum": (lambda t, x: t.maximum(x, t.full((3,), 2.0)).sum(), [[0, 1, 1], [0.5, 0, 0.5]]),
}


@pytest.mark.parametrize("name", list(TIES))
def test_ties_split_gradients_like_torch(name):
    f, expected = TIES[name]
    x = torch.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], requires_grad=True)
    f(torch, x).backward()
    assert x.grad.tolist() == expected


@pytest.mark.parametrize("name", list(TIES))
def test_ties_match_torch(rt, name):
    f, expected = TIES[name]
    x = rt.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], requires_grad=True)
    f(rt, x).backward()
    assert x.grad.tolist() == expected


# --- forward values, return types, non-differentiable results --------------------------------
def _cases(t):
    x = t.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]])
    return {
        "max_dim": repr(t.max(x, 1)),
        "min_dim_keep": repr(x.min(dim=0, keepdim=True)),
        "int_max": repr(t.tensor([[1, 3], [3, 2]]).max()),
        "argmax": repr(x.argmax()),
        "argmax_dim": repr(x.argmax(1)),
        "argmin_keep": repr(t.argmin(x, dim=0, keepdim=True)),
        "where_nonzero": repr(t.where(x > 4)),
        "where_int": repr(t.where(x > 4, 1, 0)),
        "cat_promote": repr(t.cat([t.zeros(2), t.ones(2, dtype=t.float64)])),
        "cat_empty_1d": repr(t.cat([t.zeros(2, 2), t.zeros(0)])),
        "stack_int": repr(t.stack([t.tensor([1, 2]), t.tensor([3, 4])], 1)),
        "compare": repr((x > 4, x == 5, x <= 2, x != 7)),
        "full": repr(t.full((2, 2), 1.5)),
        "full_int": repr(t.full((2,), 3)),
        "linspace": repr(t.linspace(0, 1, 5)),
        "like": repr((t.zeros_like(x), t.ones_like(x), t.full_like(x, 2))),
        "softmax_dtype": repr(t.softmax(t.tensor([1, 2]), 0, dtype=t.float64)),
        "logsumexp_int": repr(t.logsumexp(t.tensor([1, 2]), 0)),
        "values_indices": repr(x.max(0).indices.dtype),
    }


def test_forward_values_and_reprs_match_torch(rt):
    ours, theirs = _cases(torch), _cases(rt)
    for k in theirs:
        assert ours[k] == theirs[k], k


def test_max_with_dim_returns_a_named_tuple():
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    r = x.max(1)
    values, indices = r
    assert type(r).__name__ == "max" and type(r).__module__ == "torch.return_types"
    assert r.values is values and r[1] is indices
    assert indices.tolist() == [1, 0] and not indices.requires_grad
    assert values.grad_fn._saved_dim == 1 and values.grad_fn._saved_keepdim is False


# --- errors (torch's wording) -----------------------------------------------------------------
ERRORS = [
    (
        lambda t: t.cat([t.zeros(2, 2), t.zeros(3, 3)], 1),
        RuntimeError,
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
        "tensor number 1 in the list.",
    ),
    (
        lambda t: t.stack([t.zeros(2), t.zeros(3)]),
        RuntimeError,
        "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1",
    ),
    (lambda t: t.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    (
        lambda t: t.zeros(0).max(),
        RuntimeError,
        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
        "reduction dim with the 'dim' argument.",
    ),
    (
        lambda t: t.softmax(t.tensor([1, 2]), 0),
        NotImplementedError,
        "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
    ),
    (
        lambda t: t.zeros(2, 3).max(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (lambda t: t.bmm(t.zeros(2, 3), t.zeros(3, 2)), RuntimeError, "batch1 must be a 3D tensor"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_use_torch_wording(i):
    f, exc, msg = ERRORS[i]
    with pytest.raises(exc) as e:
        f(torch)
    assert str(e.value) == msg


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_error_wording_is_torchs(rt, i):
    f, exc, msg = ERRORS[i]
    with pytest.raises(exc) as e:
        f(rt)
    assert str(e.value) == msg


def test_cat_and_stack_next_functions_follow_inputs():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2)
    c = a * 2
    out = torch.cat([a, b, c])
    fns = [type(fn).__name__ if fn is not None else None for fn, _ in out.grad_fn.next_functions]
    assert fns == ["AccumulateGrad", None, "MulBackward0"]
    s = torch.stack([c, c])
    assert [fn for fn, _ in s.grad_fn.next_functions] == [c.grad_fn, c.grad_fn]


def test_tensor_method_where_and_nn_functional_softmax_use_the_new_ops():
    from detachviz.nn import functional as F

    x = torch.tensor([1.0, -2.0], requires_grad=True)
    assert x.where(x > 0, torch.zeros(2)).grad_fn.name() == "WhereBackward0"
    assert F.softmax(x, dim=0).grad_fn.name() == "SoftmaxBackward0"
    assert F.log_softmax(x, dim=0).grad_fn.name() == "LogSoftmaxBackward0"
