"""With the `exact` extra (the `mkl` wheel; engine/mkl.py) the ops torch runs through MKL are
torch's bits: sin/cos/exp/log/tanh/sqrt (VML), sigmoid (our Sleef emulation, MKL or not), the
sqrt-based optimizers, and nn.init.orthogonal_ (MKL's geqrf/orgqr). Compared with `.tolist() ==`
for the issue's seeds and sizes. Skips without torch or without the extra (DETACHVIZ_NO_MKL=1
runs the fallback: test_transcendental.py checks that one)."""

from __future__ import annotations

import pytest

import detachviz.torch as dv
from detachviz.engine import mkl

SEEDS = (0, 1, 7, 2**40 + 123)
SIZES = (1, 3, 15, 16, 17, 31, 64, 100, 1000)
OPS = ("sin", "cos", "exp", "log", "tanh", "sigmoid", "sqrt")
POSITIVE = ("log", "sqrt")

pytestmark = pytest.mark.skipif(not mkl.available(), reason="the exact extra (mkl) is absent")


def _draw(lib, seed, n, dtype, op):
    """randn(n) scaled to a wide range (the generator is bit-identical already)."""
    lib.manual_seed(seed)
    x = lib.randn(n, dtype=dtype) * 4
    return x.abs() if op in POSITIVE else x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_op_values_and_grads_are_torchs(rt, op, dtype):
    if (op, dtype) == ("sigmoid", "float64"):
        pytest.skip("torch's float64 sigmoid is Sleef's double exp, not emulated (float32 is)")
    for seed in SEEDS:
        for n in SIZES:
            want_x = _draw(rt, seed, n, getattr(rt, dtype), op).requires_grad_()
            got_x = _draw(dv, seed, n, getattr(dv, dtype), op).requires_grad_()
            want, got = getattr(rt, op)(want_x), getattr(dv, op)(got_x)
            assert got.tolist() == want.tolist(), (op, seed, n)
            want.backward(rt.ones_like(want))
            got.backward(dv.ones_like(got))
            assert got_x.grad.tolist() == want_x.grad.tolist(), (op, seed, n)


@pytest.mark.parametrize("op", OPS)
def test_strided_wide_and_special_inputs(rt, op):
    rt.manual_seed(3)
    base = rt.randn(64, 33) * rt.exp(rt.rand(64, 33) * 40 - 20)
    inf, nan = float("inf"), float("nan")
    base[0, :8] = rt.tensor([0.0, -0.0, inf, -inf, nan, 1e-40, 89.0, -104.0])
    base = base.abs() if op in POSITIVE else base
    mine = dv.tensor(base.tolist())
    for pick in (lambda t: t, lambda t: t[:, ::2], lambda t: t.T, lambda t: t[::3, 1:]):
        want = getattr(rt, op)(pick(base)).tolist()
        assert str(getattr(dv, op)(pick(mine)).tolist()) == str(want)  # str: nan == nan


def test_large_arguments_of_sin_and_cos(rt):
    x = rt.linspace(-1e6, 1e6, 4099) * 3.7
    for op in ("sin", "cos"):
        assert getattr(dv, op)(dv.tensor(x.tolist())).tolist() == getattr(rt, op)(x).tolist()


def test_in_place_forms(rt):
    rt.manual_seed(5)
    x = rt.rand(100) * 9
    for op in ("sin_", "cos_", "exp_", "log_", "tanh_", "sqrt_", "sigmoid_"):
        want, got = x.clone(), dv.tensor(x.tolist())
        getattr(want, op)()
        getattr(got, op)()
        assert got.tolist() == want.tolist(), op


def _shapes():
    for n in SIZES:
        yield (n, 7)
        yield (7, n)
        if n <= 100:
            yield (n, n)
    yield (4, 3, 5)


@pytest.mark.skipif(not mkl.lapack_available(), reason="MKL is not torch's version (2024.2)")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_init_is_torchs(rt, dtype):
    for seed in SEEDS:
        for shape in _shapes():
            rt.manual_seed(seed)
            dv.manual_seed(seed)
            want = rt.nn.init.orthogonal_(rt.empty(shape, dtype=getattr(rt, dtype)), gain=1.5)
            got = dv.nn.init.orthogonal_(dv.empty(shape, dtype=getattr(dv, dtype)), gain=1.5)
            assert got.tolist() == want.tolist(), (seed, shape)


@pytest.mark.skipif(not mkl.lapack_available(), reason="MKL is not torch's version (2024.2)")
def test_orthogonal_recurrent_weights_through_nn(rt):
    for lib in (rt, dv):
        lib.manual_seed(0)
    want, got = rt.nn.GRU(5, 12), dv.nn.GRU(5, 12)
    rt.nn.init.orthogonal_(want.weight_hh_l0)
    dv.nn.init.orthogonal_(got.weight_hh_l0)
    assert got.weight_hh_l0.tolist() == want.weight_hh_l0.tolist()


OPTIMIZERS = (
    ("RMSprop", {}),
    ("RMSprop", {"centered": True, "momentum": 0.5, "weight_decay": 0.01}),
    ("Adagrad", {"lr_decay": 0.01}),
    ("Adadelta", {}),
    ("NAdam", {}),
    ("RAdam", {"weight_decay": 0.1}),
    ("AdamW", {}),
    ("Adam", {"amsgrad": True}),
)


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS, ids=lambda v: str(v))
def test_sqrt_optimizers_take_torchs_steps(rt, name, kwargs):
    for seed in SEEDS:
        for n in SIZES:
            params = []
            for lib in (rt, dv):
                lib.manual_seed(seed)
                p = lib.randn(n, requires_grad=True)
                opt = getattr(lib.optim, name)([p], **kwargs)
                for _ in range(8):
                    p.grad = lib.randn(n) * 0.5
                    opt.step()
                params.append(p.tolist())
            assert params[1] == params[0], (name, seed, n)


POLY_FIT = """
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
a, b, c, d = (torch.randn((), requires_grad=True) for _ in range(4))
for t in range(2000):
    loss = (a + b * x + c * x**2 + d * x**3 - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= 1e-6 * p.grad
            p.grad = None
print(f"y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
"""


def test_polynomial_fit_tutorial_prints_torchs_digits(rt, tmp_path):
    """The tutorial at full precision (tests/oracle/scripts/seed_poly_fit_sin.py prints 3
    decimals, for the fallback): without MKL its 1399 loss differs by 1 ulp (sin)."""
    import subprocess
    import sys

    script = tmp_path / "poly_fit.py"
    script.write_text(POLY_FIT)
    want = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    got = subprocess.run(
        [sys.executable, "-m", "detachviz", "run", str(script)], capture_output=True, text=True
    )
    assert got.returncode == want.returncode == 0, got.stderr
    assert got.stdout == want.stdout
    assert len(want.stdout.splitlines()) == 21


def test_results_keep_the_inputs_memory_layout():
    """As torch's (and numpy's) elementwise ops: a transposed input gives a transposed result,
    which decides later ops' paths (Linear on a non-contiguous input is mm + _unsafe_view)."""
    import numpy as np

    from detachviz.engine import transcendental

    a = np.random.default_rng(0).random((5, 8, 6), dtype=np.float32).transpose(0, 2, 1)
    for x in (a, a[:, ::2], np.asfortranarray(a), a[0], a[:, :, 1:]):
        for op in ("sin", "tanh", "sqrt"):
            assert getattr(transcendental, op)(x).strides == getattr(np, op)(x).strides


@pytest.mark.parametrize("op", ("sin", "tanh", "sqrt"))
def test_large_tensors_split_across_cores_are_torchs(rt, op, monkeypatch):
    # from mkl.PARALLEL_MIN elements a call runs in one piece per core; torch's bits either way
    n = 3 * mkl.PARALLEL_MIN + 7  # not a multiple of the core count
    want_x = _draw(rt, 5, n, rt.float32, op)
    got_x = _draw(dv, 5, n, dv.float32, op)
    want = getattr(rt, op)(want_x).tolist()
    assert getattr(dv, op)(got_x).tolist() == want
    monkeypatch.setattr(mkl, "_CORES", 3)
    assert mkl._parts(n) == [
        (0, mkl.PARALLEL_MIN + 3),
        (mkl.PARALLEL_MIN + 3, mkl.PARALLEL_MIN + 3),
        (2 * mkl.PARALLEL_MIN + 6, mkl.PARALLEL_MIN + 1),
    ]
    assert getattr(dv, op)(got_x).tolist() == want
    assert mkl._parts(0) == [] and mkl._parts(5) == [(0, 5)]
