"""engine.ranges without torch: linspace's two halves, arange's vector blocks, the edge sizes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from detachviz.engine import ranges


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_linspace_ends_are_exact_and_halves_count_from_their_end(dt):
    out = ranges.linspace(-math.pi, math.pi, 2000, dt)
    assert out[0] == dt(-math.pi) and out[-1] == dt(math.pi)
    step = dt((dt(math.pi) - dt(-math.pi)) / dt(1999))
    # element 1999 - k is end - step*k: the upper half is measured from the end
    assert out[1990] == dt(float(dt(math.pi)) - float(step) * 9)  # 9*step is exact enough here
    assert out.dtype == dt


def test_linspace_is_not_numpys_correctly_spaced_values():
    ours = ranges.linspace(-math.pi, math.pi, 2000, np.float32)
    assert (ours != np.linspace(-math.pi, math.pi, 2000).astype(np.float32)).sum() > 100


@pytest.mark.parametrize(("steps", "want"), [(0, []), (1, [2.0]), (2, [2.0, 5.0])])
def test_linspace_small_sizes(steps, want):
    assert ranges.linspace(2.0, 5.0, steps, np.float64).tolist() == want


def test_arange_block_heads_round_to_the_dtype_first():
    # float32, 8 lanes: element 8 starts a block at float32(0.1 * 8) and adds 0 * 0.1
    out = ranges.arange(0.0, 0.1, 40, np.float32)
    assert out[8] == np.float32(0.1 * 8)
    assert out[9] == np.float32(float(np.float32(0.8)) + 0.1)
    # the tail after the last 16-element pair is start + step*i
    assert out[33] == np.float32(0.1 * 33)


def test_arange_and_logspace_lengths_and_values():
    assert ranges.arange(1.0, 0.5, 4, np.float64).tolist() == [1.0, 1.5, 2.0, 2.5]
    assert ranges.logspace(0, 2, 3, 10.0, np.float64).tolist() == [1.0, 10.0, 100.0]
    assert ranges.logspace(1, 1, 1, 2.0, np.float32).tolist() == [2.0]


@pytest.mark.parametrize(
    ("start", "end", "steps"), [(-math.pi, math.pi, 2000), (0, 1e-3, 777), (1e6, 1e6 + 1, 100)]
)
def test_linspace_float32_shortcut_is_the_fused_result(start, end, steps):
    from detachviz.engine.fma import fma32

    s, e = np.float32(start), np.float32(end)
    step = np.float32((e - s) / np.float32(steps - 1))
    i = np.arange(steps)
    up = i < steps // 2
    k = np.where(up, i, steps - 1 - i).astype(np.float32)
    want = fma32(np.where(up, step, -step).astype(np.float32), k, np.where(up, s, e))
    assert ranges.linspace(start, end, steps, np.float32).tolist() == want.tolist()
