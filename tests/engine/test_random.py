"""engine.random without torch: determinism, the state bytes, known first draws, the number
of draws each path takes, and argument errors with torch's wording."""

from __future__ import annotations

import numpy as np
import pytest

from detachviz.engine import random as rnd

# Published first draws of torch 2.13 after torch.manual_seed(0) (see TORCH_SEMANTICS.md).
RAND5_SEED0 = [0.49625658988952637, 0.7682217955589294, 0.08847743272781372,
               0.13203048706054688, 0.30742281675338745]  # fmt: skip
RANDN3_SEED0 = [1.5409960746765137, -0.293428897857666, -2.1787893772125244]


def test_rand_after_seed_0_is_torchs_first_draws():
    assert rnd.uniform(rnd.Generator(0), (5,), np.float32).tolist() == RAND5_SEED0


def test_randn_small_after_seed_0_is_torchs_first_draws():
    assert rnd.normal(rnd.Generator(0), (3,), np.float32).tolist() == RANDN3_SEED0


def test_rand_is_low_24_bits_of_the_raw_twister_stream():
    raw = np.random.RandomState(7)._bit_generator.random_raw(10)
    want = ((raw & 0xFFFFFF) * 2.0**-24).astype(np.float32)
    assert rnd.uniform(rnd.Generator(7), (10,), np.float32).tolist() == want.tolist()


def test_64_bit_seed_seeds_the_twister_with_its_low_32_bits_but_keeps_all_64():
    big, low = rnd.Generator(2**40 + 123), rnd.Generator(123)
    assert big.random32(5).tolist() == low.random32(5).tolist()
    assert big.initial_seed() == 2**40 + 123


def test_negative_seed_is_read_as_unsigned_and_overflow_is_an_error():
    assert rnd.Generator(-1).initial_seed() == 2**64 - 1
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        rnd.Generator(2**64)


def test_same_seed_same_numbers_and_reseeding_restarts():
    g = rnd.Generator(5)
    first = rnd.normal(g, (40,), np.float32).tolist()
    g.manual_seed(5)
    assert rnd.normal(g, (40,), np.float32).tolist() == first
    assert rnd.normal(rnd.Generator(6), (40,), np.float32).tolist() != first


def test_state_is_5056_bytes_and_round_trips_mid_stream_with_the_cached_normal():
    g = rnd.Generator(3)
    rnd.normal(g, (1,), np.float64)  # leaves the second Box-Muller sample cached
    state = g.get_state()
    assert state.dtype == np.uint8 and state.size == 5056 == rnd.STATE_SIZE
    after = rnd.normal(g, (3,), np.float64).tolist() + g.random32(700).tolist()
    g2 = rnd.Generator(99).set_state(state)
    assert rnd.normal(g2, (3,), np.float64).tolist() + g2.random32(700).tolist() == after
    assert rnd.Generator(99).set_state(state).get_state().tobytes() == state.tobytes()


def test_fresh_state_layout_fields():
    state = rnd.Generator(2**40 + 1).get_state().tobytes()
    seed, left, seeded, nxt = rnd._HEAD.unpack_from(state, 0)
    assert (seed, left, seeded, nxt) == (2**40 + 1, 1, 1, 0)
    first_word = int.from_bytes(state[24:32], "little")
    assert first_word == 1  # init_genrand's state[0] is the seed's low 32 bits


@pytest.mark.parametrize(
    ("state", "error", "message"),
    [
        (np.zeros(5056, dtype=np.uint8), RuntimeError, "Invalid mt19937 state"),
        (
            np.zeros(10, dtype=np.uint8),
            RuntimeError,
            "of size 5056 but found the input RNG state size to be 10",
        ),
        (
            np.zeros(5056, dtype=np.float32),
            TypeError,
            "RNG state must be a torch.ByteTensor",
        ),
    ],
)
def test_set_state_rejects_bad_states(state, error, message):
    with pytest.raises(error, match=message):
        rnd.Generator(0).set_state(state)


def test_clone_continues_the_same_stream():
    g = rnd.Generator(11)
    g.random32(3)
    c = g.clone()
    assert c.random32(5).tolist() == g.random32(5).tolist()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda g: rnd.uniform(g, (2,), np.float32, 1.0, 0.0),
            r"uniform_ expects to return a \[from, to\) range, but found from=1 > to=0",
        ),
        (
            lambda g: rnd.normal(g, (2,), np.float32, 0.0, -1.0),
            "normal expects std >= 0.0, but found std -1",
        ),
        (
            lambda g: rnd.random_int(g, (2,), np.int64, 5, 5),
            "random_ expects 'from' to be less than 'to', but got from=5 >= to=5",
        ),
        (
            lambda g: rnd.bernoulli_scalar(g, (2,), 1.5),
            r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5",
        ),
        (
            lambda g: rnd.exponential(g, (2,), np.float32, -1.0),
            "exponential_ expects lambda > 0.0, but found lambda=-1",
        ),
        (
            lambda g: rnd.multinomial(g, np.ones(3, np.float32), 4, False),
            "cannot sample n_sample > prob_dist.size",
        ),
        (
            lambda g: rnd.multinomial(g, -np.ones(3, np.float32), 1, True),
            "encountering probability entry < 0",
        ),
        (
            lambda g: rnd.multinomial(g, np.zeros(3, np.float32), 1, True),
            r"sum of probabilities <= 0",
        ),
        (
            lambda g: rnd.multinomial(g, np.ones((1, 1, 3), np.float32), 1, True),
            "prob_dist must be 1 or 2 dim",
        ),
    ],
)
def test_argument_errors_use_torchs_words(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(rnd.Generator(0))


@pytest.mark.parametrize("n", [0, 1, 2, 17, 500])
def test_randperm_is_a_permutation_and_draws_n_minus_1(n):
    g = rnd.Generator(4)
    perm = rnd.randperm(g, n)
    assert sorted(perm.tolist()) == list(range(n))
    g2 = rnd.Generator(4)
    g2.random32(max(n - 1, 0))
    assert g.random32(3).tolist() == g2.random32(3).tolist()


@pytest.mark.parametrize(("n", "draws"), [(1, 4), (2, 4), (3, 8), (15, 32), (16, 16), (17, 33)])
def test_normal_consumes_torchs_number_of_draws(n, draws):
    g = rnd.Generator(8)
    rnd.normal(g, (n,), np.float32)
    g2 = rnd.Generator(8)
    g2.random32(draws)
    assert g.random32(2).tolist() == g2.random32(2).tolist()


def test_shapes_and_dtypes():
    g = rnd.Generator(0)
    assert rnd.uniform(g, (2, 3), np.float64).shape == (2, 3)
    assert rnd.normal(g, (4, 5), np.float32).dtype == np.float32
    assert rnd.random_int(g, (3,), np.int32, 0, 4).dtype == np.int32
    assert rnd.multinomial(g, np.ones((2, 5), np.float32), 3, True).shape == (2, 3)
    assert rnd.bernoulli_scalar(g, (2, 2), 0.5).dtype == np.bool_
