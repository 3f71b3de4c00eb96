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


# -- the public API: detachviz.torch against torch ------------------------------------------
@pytest.fixture
def dv():
    import detachviz.torch as dvtorch

    return dvtorch


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (1, 1), (100, 30), (17, 64)])
def test_linear_init_has_torchs_weights(dv, seed, shape):
    import detachviz.nn as dnn

    torch.manual_seed(seed)
    dv.manual_seed(seed)
    theirs, ours = torch.nn.Linear(*shape), dnn.Linear(*shape)
    assert ours.weight.tolist() == theirs.weight.tolist()
    assert ours.bias.tolist() == theirs.bias.tolist()
    # a second layer continues the stream as torch's does
    assert dnn.Linear(2, 2).weight.tolist() == torch.nn.Linear(2, 2).weight.tolist()


INITS = [
    ("uniform_", {"a": -0.2, "b": 0.7}),
    ("normal_", {"mean": 0.1, "std": 0.02}),
    ("kaiming_uniform_", {}),
    ("kaiming_uniform_", {"a": 0.1, "mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {}),
    ("xavier_uniform_", {"gain": 1.3}),
    ("xavier_normal_", {}),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(4, 3), (30, 17), (5, 2, 3, 3)])
@pytest.mark.parametrize(("name", "kwargs"), INITS, ids=[f"{n}{k}" for n, k in INITS])
def test_nn_init_draws_torchs_numbers(dv, seed, shape, name, kwargs):
    import detachviz.nn.init as dinit

    torch.manual_seed(seed)
    dv.manual_seed(seed)
    theirs = getattr(torch.nn.init, name)(torch.empty(*shape), **kwargs)
    ours = getattr(dinit, name)(dv.empty(*shape), **kwargs)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_masks_are_torchs(dv, seed, n, p):
    import detachviz.nn as dnn
    import detachviz.nn.functional as dF

    torch.manual_seed(seed)
    dv.manual_seed(seed)
    x, y = torch.linspace(1, 2, n), dv.linspace(1, 2, n)
    x, y = torch.tensor(x.tolist()), dv.tensor(x.tolist())  # same input bits either way
    assert dF.dropout(y, p).tolist() == torch.nn.functional.dropout(x, p).tolist()
    assert dnn.Dropout(p)(y).tolist() == torch.nn.Dropout(p)(x).tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_factories_methods_and_generators_through_the_api(dv, seed):
    torch.manual_seed(seed)
    dv.manual_seed(seed)
    pairs = [
        (torch.rand(3, 4), dv.rand(3, 4)),
        (torch.randn(2, 17, dtype=torch.float64), dv.randn(2, 17, dtype=dv.float64)),
        (torch.randint(10, (6,)), dv.randint(10, (6,))),
        (torch.randint(3, 9, (2, 5)), dv.randint(3, 9, (2, 5))),
        (torch.randperm(30), dv.randperm(30)),
        (torch.normal(2.0, 3.0, (20,)), dv.normal(2.0, 3.0, (20,))),
        (torch.normal(torch.ones(20), 2.0), dv.normal(dv.ones(20), 2.0)),
        (torch.normal(torch.ones(5), torch.rand(5)), dv.normal(dv.ones(5), dv.rand(5))),
        (torch.rand_like(torch.ones(4)), dv.rand_like(dv.ones(4))),
        (torch.randn_like(torch.ones(40)), dv.randn_like(dv.ones(40))),
        (torch.randint_like(torch.ones(4), 7), dv.randint_like(dv.ones(4), 7)),
        (torch.bernoulli(torch.full((30,), 0.3)), dv.bernoulli(dv.full((30,), 0.3))),
        (torch.multinomial(torch.rand(3), 2), dv.multinomial(dv.rand(3), 2)),
        (torch.empty(6).uniform_(-1, 1), dv.empty(6).uniform_(-1, 1)),
        (torch.empty(3, 5).T.normal_(1, 3), dv.empty(3, 5).T.normal_(1, 3)),  # memory order
        (torch.empty(6, dtype=torch.int64).random_(), dv.empty(6, dtype=dv.int64).random_()),
        (torch.empty(6, dtype=torch.int64).random_(10), dv.empty(6, dtype=dv.int64).random_(10)),
        (torch.empty(6).random_(-3, 4), dv.empty(6).random_(-3, 4)),
        (torch.empty(6).exponential_(2.0), dv.empty(6).exponential_(2.0)),
        (torch.empty(6).bernoulli_(0.4), dv.empty(6).bernoulli_(0.4)),
        (torch.empty(4).bernoulli_(torch.rand(4)), dv.empty(4).bernoulli_(dv.rand(4))),
    ]  # fmt: skip
    for theirs, ours in pairs:
        assert ours.tolist() == theirs.tolist()
    assert dv.get_rng_state().tolist() == torch.get_rng_state().tolist()
    assert dv.initial_seed() == torch.initial_seed()
    g, h = torch.Generator().manual_seed(seed), dv.Generator().manual_seed(seed)
    assert dv.randn(20, generator=h).tolist() == torch.randn(20, generator=g).tolist()
    assert dv.rand(3).tolist() == torch.rand(3).tolist()  # the default stream is untouched
    assert h.get_state().tolist() == g.get_state().tolist()


def test_fork_rng_and_state_round_trip_through_the_api(dv):
    torch.manual_seed(3)
    dv.manual_seed(3)
    with torch.random.fork_rng(), dv.random.fork_rng():
        assert dv.rand(5).tolist() == torch.rand(5).tolist()
    assert dv.rand(5).tolist() == torch.rand(5).tolist()  # the fork's draws were undone
    dv.set_rng_state(dv.tensor(torch.get_rng_state().tolist(), dtype=dv.uint8))
    assert dv.randn(3).tolist() == torch.randn(3).tolist()


def test_inplace_fill_of_a_grad_tensor_has_torchs_backward_names(dv):
    x, y = torch.zeros(3, requires_grad=True) * 1, dv.zeros(3, requires_grad=True) * 1
    for call in ["uniform_()", "normal_()", "exponential_()", "random_()", "random_(5)",
                 "random_(2, 5)", "bernoulli_(0.5)", "bernoulli_(torch.rand(3))"]:  # fmt: skip
        theirs = eval(f"x.clone().{call}", {"x": x, "torch": torch})
        ours = eval(f"y.clone().{call}", {"y": y, "torch": dv})
        assert ours.grad_fn.name() == theirs.grad_fn.name()
