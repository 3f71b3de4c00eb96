"""engine.random against torch 2.13 itself: normal_ on every size path (scalar below 16, the
AVX2 kernel's 16-blocks with the replacement tail, float64's scalar-loop blocks), the cached
Box-Muller sample carried between calls, and randperm, compared with `==` on the values."""

from __future__ import annotations

import os

import numpy as np
import pytest

from detachviz.engine import random as rnd

SEEDS = (0, 1, 7, 2**40 + 123)
SIZES = (1, 3, 7, 15, 16, 17, 31, 64, 100, 1000, 4099)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_is_torchs_for_every_size_path_and_the_carried_sample(rt, seed, dtype):
    g = rnd.Generator(seed)
    rt.manual_seed(seed)
    for n in SIZES + (5, 2, 1):  # odd small sizes leave a cached sample for the next call
        for mean, std in ((0.0, 1.0), (0.5, 2.5)):
            ours = rnd.normal(g, (n,), np.dtype(dtype), mean, std).tolist()
            theirs = rt.empty(n, dtype=getattr(rt, dtype)).normal_(mean, std).tolist()
            assert ours == theirs, (n, mean, std)


def test_normal_strided_destination_takes_the_scalar_path(rt):
    rt.manual_seed(3)
    t = rt.empty(40, 2)[:, 0]  # not contiguous: torch's scalar sampler
    t.normal_()
    ours = rnd.normal(rnd.Generator(3), (40,), np.float32, contiguous=False)
    assert ours.tolist() == t.tolist()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 100_003])
def test_randperm_is_torchs(rt, n):
    rt.manual_seed(11)
    assert rnd.randperm(rnd.Generator(11), n).tolist() == rt.randperm(n).tolist()


@pytest.mark.skipif(
    not os.environ.get("DETACHVIZ_SLOW_TESTS"), reason="about a minute: DETACHVIZ_SLOW_TESTS=1"
)
def test_randperm_above_2_to_24_still_takes_torchs_32_bit_swap_path(rt):
    n = 2**24 + 5
    rt.manual_seed(0)
    assert np.array_equal(rnd.randperm(rnd.Generator(0), n), rt.randperm(n).numpy())


def test_randperm_refuses_torchs_64_bit_shuffle_sizes():
    with pytest.raises(RuntimeError, match="not emulated"):
        rnd.randperm(rnd.Generator(0), 2**32 // 20)
