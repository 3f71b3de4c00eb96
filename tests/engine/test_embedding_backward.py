"""The embedding weight gradient's numpy kernel adds each looked-up row into its row in order
of occurrence, so it has np.add.at's bits exactly: including the 0.0 (never -0.0) of a row
whose gradients are all -0.0, and on both of its paths (rank passes for few repeats, np.add.at
for many)."""

from __future__ import annotations

import numpy as np
import pytest

from detachviz.engine.ops.embedding import dense_backward_np


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("num", [1, 3, 40, 1000])
def test_dense_backward_has_add_at_bits(dtype: type, num: int) -> None:
    rng = np.random.default_rng(num)
    for n in (0, 1, 7, 300, 640):
        idx = rng.integers(0, num, (n,))
        scale = rng.choice(np.array([1e-4, 1.0, 1e4]), (n, 5))
        g = (rng.standard_normal((n, 5)) * scale).astype(dtype)
        g[rng.random((n, 5)) < 0.2] = -0.0
        expected = np.zeros((num, 5), dtype)
        np.add.at(expected, idx, g)
        got = dense_backward_np(g, idx, num, -1, False)
        assert got.dtype == expected.dtype
        assert got.tobytes() == expected.tobytes()


def test_all_negative_zero_rows_give_positive_zero() -> None:
    g = np.full((4, 3), -0.0, np.float32)
    got = dense_backward_np(g, np.array([2, 0, 2, 2]), 3, -1, False)
    assert not np.signbit(got).any()
