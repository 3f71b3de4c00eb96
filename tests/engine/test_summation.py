"""engine.summation without torch: the cascade against a plain recursive statement of it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from detachviz.engine import summation


def _reference_row(vals: list, dt=np.float32):  # noqa: ANN001
    """torch's multi_row_sum for one accumulator, written the slow, obvious way."""
    size = len(vals)
    power = max(4, (size - 1).bit_length() // 4) if size > 1 else 4
    step = 1 << power
    acc = [dt(0)] * 4
    i = 0
    while i + step <= size:
        for _ in range(step):
            acc[0] = dt(acc[0] + vals[i])
            i += 1
        for j in range(1, 4):
            acc[j] = dt(acc[j] + acc[j - 1])
            acc[j - 1] = dt(0)
            if i & ((step - 1) << (j * power)):
                break
    for v in vals[i:]:
        acc[0] = dt(acc[0] + v)
    for j in range(1, 4):
        acc[0] = dt(acc[0] + acc[j])
    return acc[0]


@pytest.mark.parametrize("n", [1, 5, 7, 8, 9, 64, 130, 1000, 5003])
def test_total_is_the_lanes_of_four_cascades(n):
    a = (np.random.default_rng(n).standard_normal(n) * 100).astype(np.float32)
    lanes = 8
    if n < lanes:
        quads = n // 4
        parts = [_reference_row([a[r * 4 + k] for r in range(quads)]) for k in range(4)]
        acc = parts[0]
        for v in a[quads * 4 :]:
            acc = np.float32(acc + v)
        for p in parts[1:]:
            acc = np.float32(acc + p)
        want = acc
    else:
        vec = n // lanes
        quads = vec // 4
        lane_sums = []
        for lane in range(lanes):
            col = [a[r * lanes + lane] for r in range(vec)]
            parts = [_reference_row([col[r * 4 + k] for r in range(quads)]) for k in range(4)]
            acc = parts[0]
            for v in col[quads * 4 :]:
                acc = np.float32(acc + v)
            for p in parts[1:]:
                acc = np.float32(acc + p)
            lane_sums.append(acc)
        want = np.float32(0)
        for v in a[vec * lanes :]:
            want = np.float32(want + v)
        for v in lane_sums:
            want = np.float32(want + v)
    assert summation.total(a) == want


def test_total_differs_from_numpys_pairwise_sum_somewhere():
    rng = np.random.default_rng(0)
    diffs = sum(
        summation.total(a) != np.sum(a)
        for a in (rng.standard_normal(2000).astype(np.float32) for _ in range(50))
    )
    assert diffs > 0


def test_exact_only_below_torchs_thread_split():
    assert summation.exact(32768) and not summation.exact(32769)
    assert summation.total(np.zeros(0, np.float32)) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 2, 3])
def test_columns_of_fewer_rows_than_partials_add_in_order_from_zero(rows, dtype):
    """Fewer rows than the four partials (a small expand's backward): each column is
    `0 + x0 + x1 + ...` (the empty partials add +0), so a column of -0.0 sums to +0.0."""
    rng = np.random.default_rng(rows)
    x = (rng.standard_normal((rows, 20)) * 10.0 ** rng.integers(-8, 8, (rows, 20))).astype(dtype)
    x[:, 0] = -0.0
    got = summation.columns(x)
    for j in range(20):
        acc = dtype(0.0)
        for v in x[:, j]:
            acc = dtype(acc + v)
        assert got[j].tobytes() == acc.tobytes(), (rows, j)


def _nll_literal(terms, where, n):
    """LossNLL.cpp's loop, one sample at a time."""
    power = max(4, math.ceil(math.log2(n)) // 8) if n > 1 else 4
    mask = (1 << power) - 1
    partial = [np.float32(0)] * 8
    for term, b in zip(terms, where):
        partial[0] = np.float32(partial[0] + term)
        for j in range(7):
            if b & (mask << (j * power)):
                break
            partial[j + 1] = np.float32(partial[j + 1] + partial[j])
            partial[j] = np.float32(0)
    out = np.float32(0)
    for p in partial:
        out = np.float32(out + p)
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 16, 17, 33, 256, 257, 1000, 5000])
@pytest.mark.parametrize("dropped", [0.0, 0.3])
def test_nll_cascade_is_the_loop_torch_runs(n, dropped):
    rng = np.random.default_rng(n)
    where = np.flatnonzero(rng.random(n) >= dropped)
    terms = rng.standard_normal(where.size).astype(np.float32)
    values = np.zeros(n, dtype=np.float32)
    values[where] = terms
    assert summation.nll_cascade(values, where, n) == _nll_literal(terms, where, n)
