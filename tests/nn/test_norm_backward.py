"""The normalisation nodes' array backward (engine/ops/layernorm.py, norm.py: all of a node's
gradients in one pass) against real torch, for every subset of (input, weight, bias) that
takes a gradient: the same gradients as torch's, and none for what takes none."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from nn_helpers import to_numpy

RNG = np.random.default_rng(17)
SUBSETS = [s for r in (1, 2, 3) for s in itertools.combinations(range(3), r)]


def _grads(lib, op, arrays, wants, probe):
    ts = [lib.tensor(a, requires_grad=k in wants) for k, a in enumerate(arrays)]
    (op(lib, *ts) * lib.tensor(probe)).sum().backward()
    return [None if t.grad is None else to_numpy(t.grad) for t in ts]


def _layer_norm(lib, x, w, b):
    return lib.nn.functional.layer_norm(x, (3, 5), w, b, 1e-3)


def _batch_norm(training):
    def op(lib, x, w, b):
        return lib.nn.functional.batch_norm(
            x, lib.ones(4, dtype=lib.float64) * 0.3, lib.ones(4, dtype=lib.float64) * 1.7,
            w, b, training, 0.1, 1e-3,
        )  # fmt: skip

    return op


@pytest.mark.parametrize("wants", SUBSETS)
@pytest.mark.parametrize(
    "name, op, shapes",
    [
        ("layer_norm", _layer_norm, [(4, 3, 5), (3, 5), (3, 5)]),
        ("batch_norm_train", _batch_norm(True), [(6, 4, 3, 2), (4,), (4,)]),
        ("batch_norm_eval", _batch_norm(False), [(6, 4, 3, 2), (4,), (4,)]),
    ],
)
def test_normalisation_gradients_match_torch_for_each_input_subset(
    T, torch, name, op, shapes, wants
) -> None:
    arrays = [RNG.standard_normal(s) for s in shapes]
    probe = RNG.standard_normal(shapes[0])
    ours = _grads(T, op, arrays, wants, probe)
    theirs = _grads(torch, op, arrays, wants, probe)
    for k in range(3):
        if k not in wants:
            assert ours[k] is None and theirs[k] is None
        else:
            np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-10, atol=1e-12)
