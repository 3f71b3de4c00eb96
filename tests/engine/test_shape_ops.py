"""The shape, index and counting ops of engine/ops/arrange.py and counting.py against real
torch: values, dtypes and shapes, the whole backward graph (names and wiring, so a
composition makes torch's nodes), gradients vs torch and vs finite differences (float64),
double backward, views and their `_base`, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from graph_walk import graph

import detachviz.torch as torch

RNG = np.random.default_rng(61)


def _idx(t, v):
    return t.tensor(v)


def _ZERO1(t):  # noqa: N802 - a constant mask
    return t.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]], dtype=t.float64)


def _ZERO2(t):  # noqa: N802
    return t.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=t.float64)


def _NANS(t, a):  # noqa: N802 - NaN where the mask says, the input elsewhere
    mask = t.tensor([[False, True, False], [False, False, True]])
    return t.where(mask, t.tensor(float("nan"), dtype=t.float64), a)


# name -> (f(t, *inputs) -> tensor or tuple of tensors, input shapes)
OPS = {
    "movedim": (lambda t, a: a.movedim(0, 2), [(2, 3, 4)]),
    "movedim_seq": (lambda t, a: t.movedim(a, (0, -1), (-1, 1)), [(2, 3, 4)]),
    "movedim_same": (lambda t, a: t.moveaxis(a, 1, 1), [(2, 3)]),
    "movedim_0d": (lambda t, a: a.movedim(0, 0), [()]),
    "swapaxes": (lambda t, a: a.swapaxes(0, -1), [(2, 3, 4)]),
    "swapdims": (lambda t, a: t.swapdims(a, 0, 1), [(2, 3)]),
    "ravel": (lambda t, a: a.ravel(), [(2, 3)]),
    "ravel_noncontig": (lambda t, a: a.transpose(0, 1).ravel(), [(2, 3)]),
    "unflatten": (lambda t, a: a.unflatten(1, (2, -1)), [(2, 6)]),
    "unflatten_t": (lambda t, a: t.unflatten(a.t(), 0, (3, 1)), [(2, 3)]),
    "select": (lambda t, a: t.select(a, 1, -1), [(2, 3)]),
    "broadcast_to": (lambda t, a: t.broadcast_to(a, (2, 3)), [(3,)]),
    "broadcast_to_same": (lambda t, a: a.broadcast_to((-1, 3)), [(2, 3)]),
    "broadcast_tensors": (lambda t, a, b: t.broadcast_tensors(a, b), [(2, 1), (3,)]),
    "broadcast_tensors_id": (lambda t, a, b: t.broadcast_tensors(a, b), [(2, 3), (3,)]),
    "meshgrid_ij": (lambda t, a, b: t.meshgrid(a, b, indexing="ij"), [(3,), (2,)]),
    "meshgrid_xy": (lambda t, a, b, c: t.meshgrid([a, b, c], indexing="xy"), [(3,), (2,), ()]),
    "tensor_split": (lambda t, a: t.tensor_split(a, 3, dim=1), [(2, 5)]),
    "tensor_split_idx": (lambda t, a: a.tensor_split([1, 4, 2], -1), [(2, 5)]),
    "tensor_split_t": (lambda t, a: t.tensor_split(a, t.tensor([1, 3])), [(5,)]),
    "hsplit": (lambda t, a: t.hsplit(a, 2), [(3, 4)]),
    "hsplit_1d": (lambda t, a: a.hsplit([1]), [(3,)]),
    "vsplit": (lambda t, a: t.vsplit(a, [1, 2]), [(3, 4)]),
    "dsplit": (lambda t, a: a.dsplit(2), [(1, 2, 4)]),
    "split_with_sizes": (lambda t, a: a.split_with_sizes([1, 2], 1), [(2, 3)]),
    "hstack": (lambda t, a, b: t.hstack([a, b]), [(2, 3), (2, 1)]),
    "hstack_1d": (lambda t, a, b: t.hstack((a, b)), [(2,), ()]),
    "vstack": (lambda t, a, b: t.vstack([a, b]), [(3,), (2, 3)]),
    "dstack": (lambda t, a, b: t.dstack([a, b]), [(3,), (1, 3)]),
    "column_stack": (lambda t, a, b, c: t.column_stack([a, b, c]), [(3,), (3, 2), (3, 1)]),
    "column_stack_0d": (lambda t, a, b: t.column_stack([a, b]), [(), ()]),
    "atleast_3d": (lambda t, a, b, c: t.atleast_3d(a, b, c), [(), (2,), (2, 3)]),
    "atleast_2d": (lambda t, a: t.atleast_2d([a])[0], [()]),
    "fliplr": (lambda t, a: a.fliplr(), [(2, 3)]),
    "flipud": (lambda t, a: t.flipud(a), [(2, 3)]),
    "rot90": (lambda t, a: a.rot90(), [(2, 3)]),
    "rot90_k": (lambda t, a: t.rot90(a, -3, (2, 0)), [(2, 3, 4)]),
    "rot90_2": (lambda t, a: a.rot90(2, [1, 0]), [(2, 3)]),
    "rot90_0": (lambda t, a: a.rot90(4), [(2, 3)]),
    "take_along_dim": (
        lambda t, a: t.take_along_dim(a, t.tensor([[0, 2], [1, 1]]), 1),
        [(2, 3)],
    ),
    "take_along_dim_bcast": (lambda t, a: a.take_along_dim(t.tensor([[2]]), -1), [(2, 3)]),
    "take_along_dim_flat": (lambda t, a: t.take_along_dim(a, t.tensor([5, 0, 5])), [(2, 3)]),
    "take": (lambda t, a: t.take(a, t.tensor([[0, -1], [4, 0]])), [(2, 3)]),
    "trace": (lambda t, a: a.trace(), [(3, 4)]),
    "diagflat": (lambda t, a: t.diagflat(a), [(2, 2)]),
    "diagflat_off": (lambda t, a: a.diagflat(-1), [(3,)]),
    "sum_to_size": (lambda t, a: a.sum_to_size(3, 1), [(2, 3, 4)]),
    "sum_to_size_keep": (lambda t, a: a.sum_to_size((1, 4)), [(3, 4)]),
    "diff": (lambda t, a: a.diff(), [(5,)]),
    "diff_n": (lambda t, a: t.diff(a, n=2, dim=0), [(4, 2)]),
    "diff_big_n": (lambda t, a: a.diff(5), [(3,)]),
    "diff_pre_app": (lambda t, a, b: t.diff(a, prepend=b, append=b), [(2, 3), (2, 1)]),
    "diff_0": (lambda t, a: a.diff(0), [(3,)]),
    "tensordot": (lambda t, a, b: t.tensordot(a, b, dims=([1, 2], [0, 1])), [(2, 3, 4), (3, 4)]),
    "tensordot_int": (lambda t, a, b: t.tensordot(a, b, 1), [(2, 3), (3, 2)]),
    "tensordot_0": (lambda t, a, b: t.tensordot(a, b, dims=0), [(2,), (3,)]),
    "tensordot_bcast": (lambda t, a, b: t.tensordot(a, b, ([1], [1])), [(2, 3), (2, 1)]),
    "inner": (lambda t, a, b: t.inner(a, b), [(2, 3), (4, 3)]),
    "inner_scalar": (lambda t, a, b: a.inner(b), [(), (3,)]),
    "kron": (lambda t, a, b: t.kron(a, b), [(2, 2), (3,)]),
    "kron_3d": (lambda t, a, b: a.kron(b), [(2, 1, 2), (2, 2)]),
    "matrix_power_0": (lambda t, a: t.matrix_power(a, 0), [(3, 3)]),
    "matrix_power_1": (lambda t, a: a.matrix_power(1), [(3, 3)]),
    "matrix_power_3": (lambda t, a: a.matrix_power(3), [(2, 3, 3)]),
    "matrix_power_6": (lambda t, a: t.matrix_power(a, 6), [(3, 3)]),
    "matrix_power_7": (lambda t, a: t.matrix_power(a, 7), [(2, 2)]),
    "matrix_power_neg": (lambda t, a: t.matrix_power(a + 3 * t.eye(3), -2), [(3, 3)]),
    "unfold": (lambda t, a: a.unfold(1, 2, 1), [(2, 4)]),
    "unfold_gap": (lambda t, a: a.unfold(-1, 2, 3), [(3, 7)]),
    "unfold_0d": (lambda t, a: a.unfold(0, 1, 1), [()]),
    "unfold_twice": (lambda t, a: a.unfold(0, 2, 1).unfold(1, 2, 2), [(3, 4)]),
    "prod": (lambda t, a: a.prod(), [(2, 3)]),
    "prod_dim": (lambda t, a: t.prod(a, 1), [(2, 3)]),
    "prod_keep_neg": (lambda t, a: a.prod(-2, keepdim=True), [(2, 3)]),
    "prod_0d": (lambda t, a: a.prod(0), [()]),
    "prod_one_zero": (lambda t, a: (a * _ZERO1(t)).prod(), [(2, 3)]),
    "prod_two_zeros": (lambda t, a: (a * _ZERO2(t)).prod(), [(2, 3)]),
    "prod_dim_zeros": (lambda t, a: (a * _ZERO2(t)).prod(0), [(2, 3)]),
    "nansum": (lambda t, a: _NANS(t, a).nansum(), [(2, 3)]),
    "nansum_dim": (lambda t, a: t.nansum(_NANS(t, a), (0, 1), keepdim=True), [(2, 3)]),
    "nanmean": (lambda t, a: _NANS(t, a).nanmean(-1), [(2, 3)]),
    "cummax": (lambda t, a: a.cummax(1).values, [(2, 4)]),
    "cummin": (lambda t, a: t.cummin(a, dim=-2)[0], [(3, 2)]),
    "cummax_ties": (lambda t, a: (a * _ZERO2(t)).cummax(1).values, [(2, 3)]),
    "cummin_0d": (lambda t, a: a.cummin(0).values, [()]),
    "median": (lambda t, a: a.median(), [(2, 3)]),
    "median_even": (lambda t, a: t.median(a), [(4,)]),
    "median_ties": (lambda t, a: (a * _ZERO2(t)).median(), [(2, 3)]),
    "nanmedian": (lambda t, a: _NANS(t, a).nanmedian(), [(2, 3)]),
    "index_fill": (lambda t, a: a.index_fill(1, t.tensor([0, -1]), 0.5), [(2, 3)]),
    "index_fill_t": (lambda t, a, v: t.index_fill(a, 0, t.tensor([1, 1]), v), [(2, 3), ()]),
    "index_fill_": (lambda t, a, v: (a * 1).index_fill_(-1, t.tensor(1), v), [(2, 3), ()]),
    "index_copy": (lambda t, a, b: a.index_copy(1, t.tensor([2, 0]), b), [(2, 3), (2, 2)]),
    "index_copy_": (lambda t, a, b: (a * 1).index_copy_(0, t.tensor([1]), b), [(2, 3), (1, 3)]),
}


def _inputs(shapes):
    return [RNG.uniform(-1.0, 1.0, s) for s in shapes]


def _outs(r):
    return list(r) if isinstance(r, tuple) else [r]


def _run(t, f, arrays, weights=None, create_graph=False):
    xs = [t.tensor(a, requires_grad=True) for a in arrays]
    outs = _outs(f(t, *xs))
    if weights is None:
        weights = [RNG.uniform(-1.0, 1.0, tuple(o.shape)) for o in outs]
    loss = sum((o * t.tensor(w)).sum() for o, w in zip(outs, weights))
    grads = t.autograd.grad(loss, xs, create_graph=create_graph, allow_unused=True)
    return xs, outs, weights, grads


@pytest.mark.parametrize("name", list(OPS))
def test_values_graph_and_grads_match_torch(rt, name):
    f, shapes = OPS[name]
    arrays = _inputs(shapes)
    _, ours, w, g_ours = _run(torch, f, arrays)
    _, theirs, _, g_theirs = _run(rt, f, arrays, w)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=0)
        if b.grad_fn is None:
            assert a.grad_fn is None
        else:
            assert graph(a) == graph(b)
    for a, b in zip(g_ours, g_theirs):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(OPS))
def test_grads_match_finite_differences(name):
    f, shapes = OPS[name]
    arrays = _inputs(shapes)
    _, _, w, grads = _run(torch, f, arrays)

    def value():
        with torch.no_grad():
            outs = _outs(f(torch, *[torch.tensor(a) for a in arrays]))
            return float(sum((o * torch.tensor(c)).sum() for o, c in zip(outs, w)))

    eps = 1e-6
    for a, g in zip(arrays, grads):
        num = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            a[i] += eps
            hi = value()
            a[i] -= 2 * eps
            lo = value()
            a[i] += eps
            num[i] = (hi - lo) / (2 * eps)
        got = np.zeros_like(a) if g is None else g.numpy()
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)


DOUBLE = ["rot90_k", "take", "trace", "unfold_gap", "unfold_twice", "kron", "tensordot"]
DOUBLE += ["matrix_power_3", "diff_n", "take_along_dim", "prod", "prod_dim", "prod_one_zero"]
DOUBLE += ["median_ties", "nanmedian", "index_fill_t", "index_copy", "index_copy_"]
DOUBLE += ["prod_two_zeros", "prod_dim_zeros", "nansum_dim", "nanmean", "cummax", "cummin"]


@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_matches_torch(rt, name):
    f, shapes = OPS[name]
    arrays = _inputs(shapes)
    w = None
    res = []
    for t in (torch, rt):
        xs, _, w, gs = _run(t, f, arrays, w, create_graph=True)
        second = sum((g * g.sin()).sum() for g in gs if g is not None and g.requires_grad)
        if isinstance(second, int):
            res.append([None] * len(xs))
            continue
        hs = t.autograd.grad(second, xs, allow_unused=True)
        res.append([None if h is None else h.numpy() for h in hs])
    for a, b in zip(*res):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


FORWARD = ["movedim_seq", "ravel_noncontig", "rot90_k", "unfold_gap", "take", "trace", "prod"]
FORWARD += [
    "prod_dim_zeros",
    "nansum_dim",
    "cummax",
    "median_ties",
    "nanmedian",
    "index_fill_t",
    "index_copy",
    "kron",
]
FORWARD += ["tensordot", "take_along_dim", "diff_pre_app", "matrix_power_3", "tensor_split_idx"]


@pytest.mark.parametrize("name", FORWARD)
def test_forward_ad_tangents_match_torch(rt, name):
    f, shapes = OPS[name]
    arrays = _inputs(shapes)
    tangents = _inputs(shapes)
    res = []
    for t in (torch, rt):
        fwad = t.autograd.forward_ad
        with fwad.dual_level():
            duals = [fwad.make_dual(t.tensor(a), t.tensor(b)) for a, b in zip(arrays, tangents)]
            outs = _outs(f(t, *duals))
            res.append([fwad.unpack_dual(o).tangent.numpy().copy() for o in outs])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------- views and aliasing
VIEWS = {
    "unfold": lambda t, x: x.unfold(1, 2, 1),
    "movedim": lambda t, x: t.movedim(x, 0, 1),
    "swapaxes": lambda t, x: x.swapaxes(0, 1),
    "ravel": lambda t, x: x.ravel(),
    "unflatten": lambda t, x: x.unflatten(1, (2, 2)),
    "select": lambda t, x: t.select(x, 0, 1),
    "broadcast_to": lambda t, x: x.broadcast_to((2, 3, 4)),
    "tensor_split": lambda t, x: t.tensor_split(x, 2, 1)[1],
    "hsplit": lambda t, x: t.hsplit(x, 2)[0],
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_share_storage_and_version_like_torch(rt, name):
    res = []
    for t in (torch, rt):
        x = t.arange(12.0).reshape(3, 4).clone()
        v = VIEWS[name](t, x)
        before = v._version
        x.add_(1.0)
        res.append((v._base is x, v._version - before, v.tolist(), v.is_contiguous()))
    assert res[0] == res[1]
    assert res[0][0] and res[0][1] == 1


def test_writes_through_an_unfold_view_reach_the_base():
    x = torch.zeros(5)
    w = x.unfold(0, 2, 2)
    w[1, 0] = 7.0
    assert x.tolist() == [0.0, 0.0, 7.0, 0.0, 0.0]


def test_broadcast_tensors_returns_a_tensor_already_of_the_shape_itself():
    a, b = torch.ones(2, 3), torch.ones(3)
    ra, rb = torch.broadcast_tensors(a, b)
    assert ra is a and rb._base is b and tuple(rb.shape) == (2, 3)


# ---------------------------------------------------------------------- non-differentiable
def _counting(t):
    x = t.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    i = t.tensor([3, 1, 3, 0, 1, 3])
    return {
        "nonzero": x.nonzero(),
        "nonzero_tuple": t.nonzero(x, as_tuple=True),
        "nonzero_0d": (t.nonzero(t.tensor(0.0)), t.nonzero(t.tensor(2.0), as_tuple=True)),
        "argwhere": t.argwhere(x > 0),
        "count_nonzero": (t.count_nonzero(x), x.count_nonzero(dim=-1), x.count_nonzero((0, 1))),
        "bincount": (
            t.bincount(i),
            i.bincount(minlength=6),
            t.bincount(t.tensor([], dtype=t.long)),
        ),
        "bincount_w": (
            t.bincount(i, weights=t.tensor([0.5, 1, 2, 3, 4, 5])),
            t.bincount(i, t.tensor([1, 2, 3, 4, 5, 6])),
        ),
        "unique": (t.unique(i), i.unique(sorted=False, return_inverse=True, return_counts=True)),
        "unique_float": t.unique(x, return_counts=True),
        "unique_dim": t.unique(t.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True),
        "unique_dim1": t.unique(t.tensor([[1, 0, 1], [2, 5, 2]]), return_counts=True, dim=1),
        "unique_consecutive": t.unique_consecutive(i, return_inverse=True, return_counts=True),
        "unique_consecutive_dim": t.tensor([[1, 1], [1, 1], [2, 1]]).unique_consecutive(dim=0),
        "searchsorted": (
            t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([[3, 6, 9], [0, 7, 1]])),
            t.searchsorted(t.tensor([1.0, 3.0]), 2.0, out_int32=True),
            t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]), t.tensor([[3], [4]]), right=True),
            t.searchsorted(t.tensor([1, 3, 3]), t.tensor([3]), side="right"),
            t.searchsorted(t.tensor([5, 1, 3]), t.tensor([3]), sorter=t.tensor([1, 2, 0])),
        ),
        "bucketize": (
            t.bucketize(t.tensor([1, 5, 9]), t.tensor([1, 5])),
            t.bucketize(t.tensor([[1.0, 5.5]]), t.tensor([1.0, 5.0]), right=True),
        ),
        "tril_indices": (t.tril_indices(3, 4, 1), t.tril_indices(3, 3, dtype=t.int32)),
        "triu_indices": (t.triu_indices(3, 3, -1), t.triu_indices(2, 4), t.triu_indices(0, 3)),
        "broadcast_shapes": t.broadcast_shapes((2, 1), (3,), 1),
        "prod_ints": (t.tensor([[1, 2], [3, 4]]).prod(1), t.tensor([True, False]).prod()),
        "prod_dtype": (t.tensor([1, 2], dtype=t.int32).prod(), x.prod(dtype=t.float64)),
        "nansum_ints": (t.tensor([1, 2]).nansum(), t.nansum(t.tensor([float("nan")]))),
        "cummax_ties_nan": (x.cummax(1), x.cummin(0), t.tensor([[1, 3], [2, 3]]).cummax(0)),
        "cummax_nan": t.tensor([1.0, float("nan"), 5.0, 0.0]).cummin(0),
        "median_values": (
            t.tensor([[5.0, float("nan")], [1.0, 2.0]]).median(),
            t.tensor([[5.0, float("nan")], [1.0, 2.0]]).nanmedian(),
            t.tensor([float("nan")]).nanmedian(),
            t.tensor([4, 1, 3, 2]).median(),
            t.tensor([], dtype=t.long).median(),
            t.tensor([]).nanmedian(),
        ),
        "nanmean_all_nan": t.tensor([[float("nan"), 1.0]]).nanmean(0),
    }


def test_counting_ops_match_torch(rt):
    ours, theirs = _counting(torch), _counting(rt)
    for name in theirs:
        assert repr(ours[name]) == repr(theirs[name]), name


def test_counting_results_have_no_history():
    x = torch.tensor([0.0, 2.0, 2.0], requires_grad=True)
    for r in (x.nonzero(), x.unique(), x.count_nonzero(), torch.searchsorted(x, x)):
        assert r.grad_fn is None and not r.requires_grad


def test_meshgrid_without_indexing_warns_like_torch(rt):
    for t in (torch, rt):
        with pytest.warns(UserWarning, match="indexing argument"):
            a, b = t.meshgrid(t.arange(2), t.arange(3))
        assert tuple(a.shape) == (2, 3) and b.tolist() == [[0, 1, 2], [0, 1, 2]]


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1])
def test_rot90_has_torchs_layout(rt, k):
    # odd k is a transposed flip copy in torch: not contiguous, so .view(-1) refuses
    res = []
    for t in (torch, rt):
        r = t.arange(6.0).reshape(2, 3).rot90(k)
        res.append((r.is_contiguous(), r.stride(), r.tolist()))
    assert res[0] == res[1]


def test_median_along_a_dim_is_refused_clearly():
    # torch's index among ties comes from its nth_element: not replayed, so refused
    with pytest.raises(NotImplementedError, match="median"):
        torch.tensor([1.0, 2.0]).median(0)


def test_trace_of_ints_is_long(rt):
    for t in (torch, rt):
        assert t.tensor([[1, 2], [3, 4]], dtype=t.int32).trace().dtype == t.int64


# -------------------------------------------------------------------------------- errors
ERRORS = {
    "movedim_len": lambda t: t.zeros(2, 3).movedim((0, 1), (0,)),
    "movedim_repeat": lambda t: t.zeros(2, 3).movedim((0, 0), (0, 1)),
    "select_range": lambda t: t.zeros(2, 3).select(1, 3),
    "select_0d": lambda t: t.tensor(1.0).select(0, 0),
    "broadcast_to": lambda t: t.zeros(2, 3).broadcast_to((3, 3)),
    "broadcast_tensors": lambda t: t.broadcast_tensors(t.zeros(2, 3), t.zeros(4)),
    "broadcast_shapes": lambda t: t.broadcast_shapes((2, 3), (4,)),
    "hsplit_div": lambda t: t.zeros(2, 3).hsplit(2),
    "vsplit_1d": lambda t: t.zeros(3).vsplit(3),
    "dsplit_2d": lambda t: t.dsplit(t.zeros(2, 2), 1),
    "tensor_split_0d": lambda t: t.tensor_split(t.tensor(1.0), 1),
    "tensor_split_zero": lambda t: t.zeros(3).tensor_split(0),
    "split_with_sizes": lambda t: t.zeros(2, 3).split_with_sizes([1, 1], 1),
    "fliplr": lambda t: t.zeros(3).fliplr(),
    "rot90_dims": lambda t: t.zeros(2, 3).rot90(1, (0, 0)),
    "rot90_ndim": lambda t: t.zeros(3).rot90(),
    "rot90_range": lambda t: t.zeros(2, 3).rot90(1, (0, 2)),
    "rot90_count": lambda t: t.zeros(2, 3, 4).rot90(1, (0, 1, 2)),
    "take_range": lambda t: t.zeros(2, 3).take(t.tensor([6])),
    "take_dtype": lambda t: t.zeros(2, 3).take(t.tensor([1.0])),
    "take_along_dim_nd": lambda t: t.zeros(2, 3).take_along_dim(t.tensor([1]), 1),
    "take_along_dim_dtype": lambda t: t.zeros(2, 3).take_along_dim(t.tensor([[1.0]]), 1),
    "trace_1d": lambda t: t.zeros(3).trace(),
    "sum_to_size": lambda t: t.zeros(2, 3, 4).sum_to_size(3, 2),
    "diff_0d": lambda t: t.tensor(1.0).diff(),
    "diff_order": lambda t: t.zeros(3).diff(-1),
    "tensordot_size": lambda t: t.tensordot(t.zeros(2, 3), t.zeros(4, 2), ([1], [0])),
    "inner": lambda t: t.inner(t.zeros(2, 3), t.zeros(4)),
    "matrix_power_square": lambda t: t.zeros(2, 3).matrix_power(2),
    "unfold_size": lambda t: t.zeros(2, 3).unfold(1, 4, 1),
    "unfold_step": lambda t: t.zeros(2, 3).unfold(1, 2, 0),
    "bincount_neg": lambda t: t.bincount(t.tensor([-1, 2])),
    "bincount_float": lambda t: t.bincount(t.tensor([1.0])),
    "searchsorted_dims": lambda t: t.searchsorted(t.tensor([[1, 3]]), t.tensor([1, 2])),
    "searchsorted_side": lambda t: t.searchsorted(t.tensor([1, 3]), t.tensor([1]), side="mid"),
    "nanmean_int": lambda t: t.tensor([1, 2]).nanmean(),
    "index_fill_dtype": lambda t: t.zeros(2, 3).index_fill(1, t.tensor([1.0]), 2),
    "index_fill_range": lambda t: t.zeros(2, 3).index_fill(1, t.tensor([3]), 2),
    "index_fill_2d": lambda t: t.zeros(2, 3).index_fill(1, t.tensor([[1]]), 2),
    "index_fill_value": lambda t: t.zeros(2, 3).index_fill(1, t.tensor([1]), t.ones(1)),
    "index_copy_count": lambda t: t.zeros(2, 3).index_copy(1, t.tensor([1]), t.ones(2, 2)),
    "index_copy_range": lambda t: t.zeros(2, 3).index_copy_(1, t.tensor([3]), t.ones(2, 1)),
    "index_copy_dtype": lambda t: t.zeros(2, 3).index_copy(1, t.tensor([1.0]), t.ones(2, 1)),
    "meshgrid_indexing": lambda t: t.meshgrid(t.zeros(2), indexing="ji"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(rt, name):
    caught = []
    for t in (torch, rt):
        with pytest.raises(Exception) as info:
            ERRORS[name](t)
        caught.append((type(info.value).__name__, str(info.value).splitlines()[0]))
    assert caught[0] == caught[1]
