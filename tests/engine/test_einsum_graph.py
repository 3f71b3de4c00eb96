"""torch.einsum draws torch's nodes: the same diagonals, unsqueezes, permutes, sums,
squeezes, muls and sumproduct_pair (permute, reshape, bmm, view, permute, view) as aten's
einsum, for each kind of equation; values and gradients are torch's too."""

from __future__ import annotations

import numpy as np
import pytest
from graph_walk import graph

# equation -> operand shapes
CASES = {
    "ij,jk->ik": [(2, 3), (3, 4)],
    "ij,jk": [(2, 3), (3, 4)],
    "bij,bjk->bik": [(2, 2, 3), (2, 3, 4)],
    "bqhd,bkhd->bhqk": [(2, 3, 2, 4), (2, 5, 2, 4)],
    "bhqk,bkhd->bqhd": [(2, 2, 3, 5), (2, 5, 2, 4)],
    "i,i->": [(3,), (3,)],
    "i,j->ij": [(3,), (2,)],
    "bi,bj->bij": [(2, 3), (2, 4)],
    "ii->i": [(3, 3)],
    "ii": [(3, 3)],
    "iji->j": [(3, 2, 3)],
    "ij->": [(2, 3)],
    "ij->ji": [(2, 3)],
    "Ab,bC->AC": [(2, 3), (3, 4)],
    "bA,Ac->bc": [(2, 3), (3, 4)],
    "...ij,...jk->...ik": [(2, 2, 3), (2, 3, 4)],
    "...ij,jk->...ik": [(5, 2, 3), (3, 4)],
    "i...,i->...": [(3, 2, 2), (3,)],
    "b...,b...->b": [(2, 3), (2, 1)],
    "ij,ij->ij": [(2, 3), (1, 3)],
    "ij,ij->i": [(2, 3), (2, 1)],
    "ij,jk,kl->il": [(2, 3), (3, 4), (4, 2)],
    "i,ij,j->": [(2,), (2, 3), (3,)],
    "ij->i": [(2, 1)],
    "ijk->i": [(2, 1, 3)],
    "ab,bc->ac": [(2, 1), (1, 4)],
    "ij,j->i": [(2, 3), (1,)],
    "ijk,i->i": [(2, 3, 4), (2,)],
}


def _run(lib, eq, shapes):
    rng = np.random.default_rng(7)
    xs = [lib.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True) for s in shapes]
    out = lib.einsum(eq, *xs)
    grads = lib.autograd.grad((out * out).sum(), xs)
    return graph(out), out.detach().numpy(), [g.numpy() for g in grads]


@pytest.mark.parametrize("eq", CASES)
def test_einsum_nodes_values_grads_match_torch(eq, dv, rt):
    want = _run(rt, eq, CASES[eq])
    got = _run(dv, eq, CASES[eq])
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-5)
    for g, w in zip(got[2], want[2], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_einsum_with_one_input_needing_grad_matches_torch(dv, rt):
    graphs = []
    for lib in (rt, dv):
        a = lib.ones(2, 3, requires_grad=True)
        graphs.append(graph(lib.einsum("ij,jk->ik", a, lib.ones(3, 4))))
    assert graphs[1] == graphs[0]


@pytest.mark.parametrize(
    "eq, shapes",
    [
        ("ij,jk->ik", [(2, 3), (4, 5)]),
        ("ii->i", [(2, 3)]),
        ("...ij,...jk->...ik", [(2, 2, 3), (3, 3, 5)]),
        ("ij,jk->ik", [(2, 3)]),
        ("ij->i", [(2, 3, 4)]),
    ],
)
def test_einsum_errors_are_torchs(eq, shapes, dv, rt):
    messages = []
    for lib in (rt, dv):
        with pytest.raises(RuntimeError) as e:
            lib.einsum(eq, *[lib.ones(s) for s in shapes])
        messages.append(str(e.value))
    assert messages[1] == messages[0]


def test_einsum_with_a_zero_size_dim_is_zeros_like_torch(dv, rt):
    results = []
    for lib in (rt, dv):
        out = lib.einsum("ij,jk->ik", lib.ones(2, 0, requires_grad=True), lib.ones(0, 4))
        results.append((tuple(out.shape), out.grad_fn is None, out.sum().item()))
    assert results[1] == results[0]
