"""The optimizers' in-place kernels round as torch 2.13's CPU kernels do (FMA where torch
fuses), checked value by value against real torch for sizes across the vector/tail split."""

from __future__ import annotations

import numpy as np
import pytest

from detachviz.optim import kernels as K

SIZES = [1, 3, 7, 8, 15, 16, 17, 31, 33, 100, 1000]


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = (rng.standard_normal(n) ** 2 + 0.1).astype(np.float32)
    return a, b, c


def _bits(x) -> list[int]:
    return np.asarray(x, dtype=np.float32).view(np.int32).tolist()


CASES = [
    ("add_", lambda k, a, b, c: k.add_(a, b, alpha=0.3), lambda a, b, c: a.add_(b, alpha=0.3)),
    (
        "add_neg",
        lambda k, a, b, c: k.add_(a, b, alpha=-0.05),
        lambda a, b, c: a.add_(b, alpha=-0.05),
    ),
    ("lerp_small", lambda k, a, b, c: k.lerp_(a, b, 0.1), lambda a, b, c: a.lerp_(b, 0.1)),
    ("lerp_large", lambda k, a, b, c: k.lerp_(a, b, 0.7), lambda a, b, c: a.lerp_(b, 0.7)),
    (
        "addcmul_",
        lambda k, a, b, c: k.addcmul_(a, b, b, value=0.001),
        lambda a, b, c: a.addcmul_(b, b, value=0.001),
    ),
    (
        "addcdiv_",
        lambda k, a, b, c: k.addcdiv_(a, b, c, value=-0.01),
        lambda a, b, c: a.addcdiv_(b, c, value=-0.01),
    ),
    ("maximum_", lambda k, a, b, c: k.maximum_(a, b), lambda a, b, c: a.copy_(a.maximum(b))),
]


@pytest.mark.parametrize("name,ours,theirs", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("n", SIZES)
def test_kernel_matches_torch_bit_for_bit(T, torch, name, ours, theirs, n):
    a, b, c = _data(n, n)
    mine = T.tensor(a.copy())
    ours(K, mine, T.tensor(b), T.tensor(c))
    ref = torch.from_numpy(a.copy())
    theirs(ref, torch.from_numpy(b), torch.from_numpy(c))
    assert _bits(mine.numpy()) == _bits(ref.numpy())


def test_kernel_write_bumps_the_version_once(T):
    x = T.zeros(3)
    before = x._version
    K.addcdiv_(x, T.ones(3), T.ones(3), value=2.0)
    assert x._version == before + 1
    assert x.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name,ours,theirs", CASES[:5], ids=[c[0] for c in CASES[:5]])
def test_float64_kernels_match_torch(T, torch, name, ours, theirs):
    a, b, c = (v.astype(np.float64) * 1.37 for v in _data(101, 5))
    mine = T.tensor(a.copy())
    ours(K, mine, T.tensor(b), T.tensor(c))
    ref = torch.from_numpy(a.copy())
    theirs(ref, torch.from_numpy(b), torch.from_numpy(c))
    assert mine.numpy().view(np.int64).tolist() == ref.numpy().view(np.int64).tolist()
