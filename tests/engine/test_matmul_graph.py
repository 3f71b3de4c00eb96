"""matmul draws torch's nodes for every shape case: LinearAlgebra.cpp's _matmul_impl picks dot,
mv, mm, a fold of the batch dims into one mm (viewed back with _unsafe_view), or expand +
reshape + bmm + _unsafe_view, and the picture shows whichever torch would have run. Each case
walks both engines' graphs (node names and next_functions, in order) and checks the gradients
against real torch."""

from __future__ import annotations

import numpy as np
import pytest
from graph_walk import graph

# (x shape, y shape, x requires grad, y requires grad, which side is a transposed view ('' none))
CASES = {
    "1d@1d": ((3,), (3,), True, True, ""),
    "2d@1d": ((2, 3), (3,), True, True, ""),
    "1d@2d": ((3,), (3, 4), True, True, ""),
    "2d@2d": ((2, 3), (3, 4), True, True, ""),
    "3d@2d": ((5, 2, 3), (3, 4), True, True, ""),
    "3d@2d_x_only": ((5, 2, 3), (3, 4), True, False, ""),
    "3d@2d_y_only": ((5, 2, 3), (3, 4), False, True, ""),
    "3d@1d": ((5, 2, 3), (3,), True, True, ""),
    "4d@2d": ((2, 5, 2, 3), (3, 4), True, True, ""),
    "3d_noncontig@2d_x_only": ((5, 3, 2), (3, 4), True, False, "x"),
    "3d_noncontig@2d": ((5, 3, 2), (3, 4), True, True, "x"),
    "1d@3d": ((3,), (5, 3, 4), True, True, ""),
    "2d@3d": ((2, 3), (5, 3, 4), True, True, ""),
    "2d@3d_y_only": ((2, 3), (5, 3, 4), False, True, ""),
    "2d@3d_x_only": ((2, 3), (5, 3, 4), True, False, ""),
    "1d@3d_y_only": ((3,), (5, 3, 4), False, True, ""),
    "1d@3d_x_only": ((3,), (5, 3, 4), True, False, ""),
    "2d@4d": ((2, 3), (2, 5, 3, 4), True, True, ""),
    "3d@1d_noncontig_x_only": ((5, 3, 2), (3,), True, False, "x"),
    "3d@3d": ((5, 2, 3), (5, 3, 4), True, True, ""),
    "3d@3d_y_only": ((5, 2, 3), (5, 3, 4), False, True, ""),
    "4d@3d_broadcast": ((2, 1, 2, 3), (5, 3, 4), True, True, ""),
    "4d@4d": ((2, 5, 2, 3), (2, 5, 3, 4), True, True, ""),
    "2d@3d_noncontig_y_only": ((2, 3), (5, 4, 3), False, True, "y"),
    "3d@3d_noncontig_y": ((5, 2, 3), (5, 4, 3), True, True, "y"),
    "4d_noncontig@4d": ((2, 5, 3, 2), (2, 5, 3, 4), True, True, "x"),
}


def _pair(lib, xs, ys, xg, yg, xt):
    rng = np.random.default_rng(0)
    xa = rng.standard_normal(xs).astype(np.float32)
    ya = rng.standard_normal(ys).astype(np.float32)
    x = lib.tensor(xa, requires_grad=xg)
    y = lib.tensor(ya, requires_grad=yg)
    leaves = [t for t, g in ((x, xg), (y, yg)) if g]
    if xt == "x":
        x = x.transpose(-1, -2)
    if xt == "y":
        y = y.transpose(-1, -2)
    return x, y, leaves


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_matmul_nodes_and_grads_match_torch(case, dv, rt):
    xs, ys, xg, yg, xt = CASES[case]
    results = []
    for lib in (rt, dv):
        x, y, leaves = _pair(lib, xs, ys, xg, yg, xt)
        out = x @ y
        g = lib.autograd.grad(out.sum() * 1.5, leaves)
        results.append((graph(out), tuple(out.shape), [gi.detach().numpy() for gi in g]))
    (want_graph, want_shape, want_g), (got_graph, got_shape, got_g) = results
    assert got_graph == want_graph
    assert got_shape == want_shape
    for w, a in zip(want_g, got_g):
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-5)


def test_reshape_of_a_permuted_tensor_is_clone_and_unsafe_view(dv, rt):
    # torch's reshape copies what it cannot view: clone(contiguous) + _unsafe_view
    graphs = []
    for lib in (rt, dv):
        x = lib.ones(2, 3, 4, requires_grad=True)
        graphs.append(graph(x.transpose(1, 2).reshape(2, 12)))
    assert graphs[1] == graphs[0]
    assert graphs[1][0].startswith("0:UnsafeViewBackward0 -> CloneBackward0")


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_a_transposed_input_is_contiguous(fn, dv, rt):
    # so cross_entropy's view of a (N, C, L) logits input is a plain ViewBackward0, no clone
    results = []
    for lib in (rt, dv):
        x = lib.ones(2, 5, 3, requires_grad=True).transpose(1, 2)
        y = getattr(x, fn)(1)
        results.append((y.is_contiguous(), y.stride(), graph(y.view(2, -1))))
    assert results[1] == results[0]
    assert results[1][0] is True


@pytest.mark.parametrize(
    "xs, ys",
    [((5, 2, 3), (4,)), ((5, 2, 3), (4, 2)), ((2, 2, 3), (2, 5, 6)), ((3,), (5, 4, 2))],
)
def test_matmul_shape_errors_are_torchs(xs, ys, dv, rt):
    # each shape case fails inside the kernel torch's decomposition reaches (mv, mm, bmm)
    messages = []
    for lib in (rt, dv):
        with pytest.raises(RuntimeError) as e:
            lib.ones(xs) @ lib.ones(ys)
        messages.append(str(e.value))
    assert messages[1] == messages[0]
