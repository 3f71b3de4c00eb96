"""engine.random against real torch: every draw equals torch's with `==` on `.tolist()`, for
seeds {0, 1, 7, 2**40+123} and sizes {1, 3, 15, 16, 17, 31, 64, 100, 1000}."""

from __future__ import annotations

import numpy as np
import pytest

from detachviz.engine import random as rnd

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 7, 2**40 + 123]
SIZES = [1, 3, 15, 16, 17, 31, 64, 100, 1000]
FLOATS = [(torch.float32, np.float32), (torch.float64, np.float64)]


def _weights(n: int) -> np.ndarray:
    return np.abs(np.sin(np.arange(2 * n) + 1.0)).astype(np.float32).reshape(2, n)


# name -> (ours(gen, n, np_dtype), torch's(n, torch_dtype)); both called right after seeding
FLOAT_DRAWS = {
    "rand": (lambda g, n, d: rnd.uniform(g, (n,), d), lambda n, t: torch.rand(n, dtype=t)),
    "uniform_": (
        lambda g, n, d: rnd.uniform(g, (n,), d, -0.37, 2.5),
        lambda n, t: torch.empty(n, dtype=t).uniform_(-0.37, 2.5),
    ),
    "randn": (lambda g, n, d: rnd.normal(g, (n,), d), lambda n, t: torch.randn(n, dtype=t)),
    "normal_": (
        lambda g, n, d: rnd.normal(g, (n,), d, 0.3, 2.7),
        lambda n, t: torch.empty(n, dtype=t).normal_(0.3, 2.7),
    ),
    "exponential_": (
        lambda g, n, d: rnd.exponential(g, (n,), d, 1.5),
        lambda n, t: torch.empty(n, dtype=t).exponential_(1.5),
    ),
    "bernoulli_(p)": (
        lambda g, n, d: rnd.bernoulli_scalar(g, (n,), 0.3).astype(d),
        lambda n, t: torch.empty(n, dtype=t).bernoulli_(0.3),
    ),
    "bernoulli(tensor)": (
        lambda g, n, d: rnd.bernoulli_tensor(g, np.linspace(0, 1, n).astype(d)).astype(d),
        lambda n, t: torch.bernoulli(torch.linspace(0, 1, n, dtype=torch.float64).to(t)),
    ),
    "random_()": (
        lambda g, n, d: rnd.random_bits(g, (n,), d),
        lambda n, t: torch.empty(n, dtype=t).random_(),
    ),
}

INT_DRAWS = {
    "randint": (
        lambda g, n: rnd.random_int(g, (n,), np.int64, -5, 17),
        lambda n: torch.randint(-5, 17, (n,)),
    ),
    "randint 2**40": (
        lambda g, n: rnd.random_int(g, (n,), np.int64, 0, 2**40),
        lambda n: torch.randint(0, 2**40, (n,)),
    ),
    "randint int32": (
        lambda g, n: rnd.random_int(g, (n,), np.int32, 0, 10),
        lambda n: torch.randint(0, 10, (n,), dtype=torch.int32),
    ),
    "random_() int64": (
        lambda g, n: rnd.random_bits(g, (n,), np.int64),
        lambda n: torch.empty(n, dtype=torch.int64).random_(),
    ),
    "randperm": (lambda g, n: rnd.randperm(g, n), lambda n: torch.randperm(n)),
    "multinomial replacement": (
        lambda g, n: rnd.multinomial(g, _weights(n), 5, True),
        lambda n: torch.multinomial(torch.from_numpy(_weights(n)), 5, True),
    ),
    "multinomial": (
        lambda g, n: rnd.multinomial(g, _weights(n), min(n, 4), False),
        lambda n: torch.multinomial(torch.from_numpy(_weights(n)), min(n, 4), False),
    ),
    "multinomial 1 sample": (
        lambda g, n: rnd.multinomial(g, _weights(n)[0], 1, True),
        lambda n: torch.multinomial(torch.from_numpy(_weights(n)[0]), 1, True),
    ),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", list(FLOAT_DRAWS))
@pytest.mark.parametrize(("tdt", "ndt"), FLOATS, ids=["float32", "float64"])
def test_float_draws_equal_torchs(name, n, seed, tdt, ndt):
    ours, theirs = FLOAT_DRAWS[name]
    g = rnd.Generator(seed)
    torch.manual_seed(seed)
    # twice in a row: the second call starts mid-stream (and after any cached normal)
    for _ in range(2):
        assert ours(g, n, ndt).tolist() == theirs(n, tdt).tolist()
    assert g.get_state().tobytes() == torch.get_rng_state().numpy().tobytes()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", list(INT_DRAWS))
def test_integer_draws_equal_torchs(name, n, seed):
    ours, theirs = INT_DRAWS[name]
    g = rnd.Generator(seed)
    torch.manual_seed(seed)
    for _ in range(2):
        assert ours(g, n).tolist() == theirs(n).tolist()
    assert g.get_state().tobytes() == torch.get_rng_state().numpy().tobytes()


@pytest.mark.parametrize("seed", SEEDS)
def test_state_saved_under_torch_restores_torchs_stream(seed):
    torch.manual_seed(seed)
    torch.randn(3)  # a cached double normal and a mid-block twister position
    state = torch.get_rng_state()
    g = rnd.Generator(0).set_state(state.numpy())
    assert rnd.normal(g, (5,), np.float32).tolist() == torch.randn(5).tolist()
    assert (
        rnd.uniform(g, (700,), np.float64).tolist() == torch.rand(700, dtype=torch.float64).tolist()
    )


def test_generator_objects_and_default_seed_match_torchs():
    g, t = rnd.Generator(), torch.Generator()
    assert g.initial_seed() == t.initial_seed()
    assert g.get_state().tobytes() == t.get_state().numpy().tobytes()
    assert rnd.normal(g, (20,), np.float32).tolist() == torch.randn(20, generator=t).tolist()


def test_large_randn_matches_bit_for_bit():
    g = rnd.Generator(0)
    torch.manual_seed(0)
    ours = rnd.normal(g, (100_003,), np.float32)
    assert ours.view(np.int32).tolist() == torch.randn(100_003).numpy().view(np.int32).tolist()
