"""The compiled kernels (engine/_kernels.c through engine/kernels.py) give the numpy
emulations' bits, element for element: Sleef's expf and logf against the step-by-step
references, glibc's expf against ctypes' call of it, sigmoid against the numpy split, the
fused multiply-add against fma.py's emulation. Inputs: random bit patterns (every binade,
subnormals, nan payloads, infinities) and each kernel's own range densely. Under CI the
kernels must have been built: an install that silently fell back would pass the rest."""

from __future__ import annotations

import os

import numpy as np
import pytest

from detachviz.engine import fma, kernels, libm, transcendental

pytestmark = pytest.mark.skipif(
    not kernels.available and os.environ.get("CI") != "true",
    reason="the compiled kernels were not built (no C compiler at install)",
)

SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 1.17549435e-38, 3.4e38]
    + [-104.0, -104.00001, 100.0, 100.00001, 87.0, -87.0, 88.7, -88.7, 1.0, -1.0, 0.5],
    dtype=np.float32,
)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


def _inputs(seed: int, spread: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    patterns = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate(
        [
            patterns.view(np.float32),
            SPECIAL,
            rng.uniform(-spread, spread, 200_000).astype(np.float32),
            rng.normal(0, spread / 20, 100_000).astype(np.float32),
        ]
    )


@pytest.fixture(params=[True, False], ids=["avx2-fma-loops", "any-cpu-loops"], autouse=True)
def loops(request):
    """Every test on both compiled copies of the loops (where the CPU runs the fast ones)."""
    if kernels.available:
        fast = kernels._C.choose(request.param)
        if request.param and not fast:
            pytest.skip("this CPU lacks AVX2 or FMA")
    yield
    if kernels.available:
        kernels._C.choose(True)


def test_the_kernels_are_built_under_ci():
    assert kernels.available


@pytest.mark.parametrize("seed", [0, 1])
def test_sleef_expf_is_the_reference_emulation(seed):
    x = _inputs(seed, 110.0)
    with np.errstate(all="ignore"):
        want = transcendental._sleef_expf(x, fma.emulated_fma32)
    assert np.array_equal(_bits(kernels.sleef_expf(x)), _bits(want))


@pytest.mark.parametrize("seed", [0, 1])
def test_sleef_logf_is_the_reference_emulation(seed):
    x = np.abs(_inputs(seed, 1e4))
    x = np.concatenate([x, -x[:1000]])
    with np.errstate(all="ignore"):
        want = transcendental._sleef_logf(x, fma.emulated_fma32)
    assert np.array_equal(_bits(kernels.sleef_logf(x)), _bits(want))


def test_expf_is_the_c_librarys():
    x = _inputs(2, 100.0)[::40]  # ctypes' element-by-element call is slow: 12,000 values
    with np.errstate(all="ignore"):
        want = libm._c_expf()(x).astype(np.float32)
    assert np.array_equal(_bits(kernels.expf(x)), _bits(want))


@pytest.mark.parametrize("n", [1, 5, 15, 16, 17, 31, 33, 100, 1000, 4099])
def test_sigmoid_is_the_numpy_split(n):
    """Rows of n: Sleef on each row's first n - n % 16, glibc's expf on the rest (the numpy
    split's tail is float64 exp rounded once, glibc's expf but for rare values: compared on
    the Sleef part and against glibc on the tail)."""
    rng = np.random.default_rng(n)
    rows = (rng.standard_normal((3, n)) * 6).astype(np.float32)
    got = kernels.sigmoid(rows, n)
    vec = n - n % 16
    with np.errstate(all="ignore"):
        e = transcendental._sleef_expf(np.float32(0) - rows[:, :vec], fma.emulated_fma32)
        head = np.float32(1) / (np.float32(1) + e)
        tail = np.float32(1) / (np.float32(1) + libm._c_expf()(-rows[:, vec:]).astype(np.float32))
    assert np.array_equal(_bits(got[:, :vec]), _bits(head))
    assert np.array_equal(_bits(got[:, vec:]), _bits(tail))


def test_sigmoid_reads_strided_and_transposed_inputs_as_the_numpy_path(monkeypatch):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((40, 33)) * 5).astype(np.float32)
    views = (x.T, x[:, ::2], x[::3], x[:, :20], x.reshape(2, 20, 33)[:, ::2])
    got = [transcendental.sigmoid(a) for a in views]
    monkeypatch.setattr(kernels, "available", False)
    for a, g in zip(views, got):
        want = transcendental.sigmoid(a)
        assert g.shape == a.shape
        assert np.array_equal(_bits(g), _bits(want))


def test_fma_is_the_emulation_with_broadcasting():
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((2, 300, 7)).astype(np.float32) for _ in range(2))
    c = rng.standard_normal((300, 1)).astype(np.float32)
    want = fma.emulated_fma32(a, b, c)
    got = kernels.fma32(a, b, c)
    assert got.shape == want.shape == (2, 300, 7)
    assert np.array_equal(_bits(got), _bits(want))
    # products whose float64 sum lands on a float32 halfway point: the one hard case
    a = np.full(4, 1 + 2**-12, np.float32)
    c = np.array([2**-25, -(2**-25), 1.0, -1.0], np.float32)
    assert np.array_equal(_bits(kernels.fma32(a, a, c)), _bits(fma.emulated_fma32(a, a, c)))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kernels._C.sleef_expf(np.zeros(3), np.zeros(3, np.float32)), "float32"),
        (lambda: kernels._C.sleef_expf(np.zeros(3, np.float32), np.zeros(2, np.float32)), "length"),
        (lambda: kernels._C.sigmoid(np.zeros(6, np.float32), np.zeros(6, np.float32), 4), "rows"),
        (lambda: kernels._C.sigmoid(np.zeros(6, np.float32), np.zeros(6, np.float32), 0), "rows"),
        (lambda: kernels._C.fma(*[np.zeros(2, np.float32)] * 3, np.zeros(3, np.float32)), "length"),
    ],
)
def test_bad_buffers_are_refused_with_a_clear_error(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


def test_a_read_only_destination_is_refused():
    out = np.zeros(3, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        kernels._C.expf(np.zeros(3, np.float32), out)


def test_the_backward_kernels_are_the_numpy_formulas():
    """tanh_backward's one fused step, sigmoid_backward's two roundings and relu's
    threshold_backward, as the numpy rules compute them (fma.one_minus_square32 is the fused
    `1 - y*y`, by proof)."""
    rng = np.random.default_rng(4)
    g = _inputs(6, 1e3)
    y = np.concatenate(
        [rng.uniform(-1, 1, g.size - 1000).astype(np.float32), _inputs(7, 2.0)[:1000]]
    )
    with np.errstate(all="ignore"):
        want_tanh = g * fma.one_minus_square32(y)
        want_sigmoid = g * (np.float32(1) - y) * y
    got = kernels.tanh_back(g, y)
    nan = np.isnan(want_tanh)  # a nan's sign bit is the fma's (hardware or glibc's) to choose
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(_bits(got[~nan]), _bits(want_tanh[~nan]))
    assert np.array_equal(_bits(kernels.sigmoid_back(g, y)), _bits(want_sigmoid))
    y[:5] = [np.nan, -0.0, 0.0, -np.inf, np.inf]
    want_relu = np.where(y <= 0, np.float32(0), g)
    assert np.array_equal(_bits(kernels.relu_back(g, y)), _bits(want_relu))


def test_dense_f32_admits_only_what_the_kernels_take():
    a = np.zeros((3, 4), np.float32)
    assert kernels.dense_f32(a, a + 1)
    assert not kernels.dense_f32(a, a.T)  # another shape
    assert not kernels.dense_f32(a, np.zeros((3, 4)))  # float64
    assert not kernels.dense_f32(a[:, ::2], a[:, ::2])  # strided
    assert not kernels.dense_f32(np.float32(1), np.float32(2))  # numpy scalars


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_vml_call_by_address_is_the_ctypes_call(dtype, monkeypatch):
    from detachviz.engine import mkl

    if not mkl.available():
        pytest.skip("the exact extra (mkl) is absent")
    x = (np.random.default_rng(8).standard_normal(1000) * 4).astype(dtype)
    direct = [mkl.vml(name)(x) for name in ("Tanh", "Exp", "Sin")]
    monkeypatch.setattr(kernels, "call_vml", None)  # vml() binds its call when it is made
    through_ctypes = [mkl.vml(name)(x) for name in ("Tanh", "Exp", "Sin")]
    for got, want in zip(direct, through_ctypes):
        assert got.dtype == dtype
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_call_vml_refuses_mixed_formats_and_no_function():
    f32, f64 = np.zeros(3, np.float32), np.zeros(3)
    with pytest.raises(TypeError, match="float32 or float64"):
        kernels.call_vml(0, f32, f32, 0)  # address 0: no function
    with pytest.raises(TypeError, match="float32 or float64"):
        kernels.call_vml(1, f32, f64, 0)
    with pytest.raises(TypeError, match="float32 or float64"):
        kernels.call_vml(1, np.zeros(3, np.int32), np.zeros(3, np.int32), 0)
    with pytest.raises(ValueError, match="lengths"):
        kernels.call_vml(1, f32, np.zeros(4, np.float32), 0)


def _layouts() -> list[np.ndarray]:
    a = np.arange(60, dtype=np.float32).reshape(6, 10)
    read_only = a.copy()
    read_only.setflags(write=False)
    return [
        a, a.T, a[::-1], a[:, ::-3], a[2:, 5:], np.broadcast_to(a[0], (4, 10)), read_only,
        np.full((), 2.5), np.zeros(0, np.int16),
    ]  # fmt: skip


@pytest.mark.parametrize("k", range(9))
def test_address_is_numpys_first_element_address_for_every_layout(k):
    from detachviz.engine import mkl

    a = _layouts()[k]
    assert kernels.address(a) == a.ctypes.data
    assert mkl.address(a) == a.ctypes.data  # what blas.py's calls are given


def test_address_refuses_what_is_no_buffer():
    with pytest.raises(TypeError):
        kernels.address([1.0, 2.0])


@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 15, 16, 17, 64, 100, 1000])
def test_lane_sum_is_the_numpy_fold(n, monkeypatch):
    from detachviz.engine import softmax

    rng = np.random.default_rng(n)
    rows = (rng.standard_normal((5, n)) * 10.0 ** rng.integers(-3, 4, (5, n))).astype(np.float32)
    products = rng.standard_normal((5, n)).astype(np.float32)
    got = [softmax.lane_sum(rows), softmax.lane_sum(rows, products), softmax.lane_sum(rows.T.T)]
    monkeypatch.setattr(kernels, "available", False)
    want = [softmax.lane_sum(rows), softmax.lane_sum(rows, products), softmax.lane_sum(rows)]
    for g, w in zip(got, want):
        assert np.array_equal(_bits(g), _bits(w))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 255, 256, 257, 5000, 70000])
def test_nll_cascade_is_the_segment_emulation(n, dtype, monkeypatch):
    from detachviz.engine import summation

    rng = np.random.default_rng(n)
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-4, 5, n)).astype(dtype)
    cases = [np.arange(n), np.flatnonzero(rng.random(n) < 0.7), np.array([n - 1])]
    got = [summation.nll_cascade(values, kept, n) for kept in cases]
    monkeypatch.setattr(kernels, "available", False)
    want = [summation.nll_cascade(values, kept, n) for kept in cases]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == dtype
        assert g.tobytes() == w.tobytes()


def test_lane_sum_and_the_cascade_refuse_bad_buffers():
    with pytest.raises(ValueError, match="rows"):
        kernels._C.lane_sum(np.zeros(7, np.float32), np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="int64"):
        kernels._C.nll_cascade(np.zeros(3, np.float32), np.zeros(2, np.int64), 4)
    with pytest.raises(TypeError, match="float32 or float64"):
        kernels._C.nll_cascade(np.zeros(2, np.int64), np.zeros(2, np.int64), 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_total_is_the_numpy_cascade(dtype, monkeypatch):
    """Every size up to 300 and sizes around each cascade level's block (2**4 rows of
    vectors, 2**8, 2**12) up to torch's one-thread limit."""
    from detachviz.engine import summation

    rng = np.random.default_rng(9)
    sizes = list(range(301)) + [
        s + d for s in (512, 1024, 2048, 4096, 8192, 16384, 32768) for d in (-33, -1, 0, 1, 7)
    ]
    sizes = [s for s in sizes if s <= 32768]
    data = [(rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dtype) for n in sizes]
    got = [summation.total(x) for x in data]
    monkeypatch.setattr(kernels, "available", False)
    for n, x, g in zip(sizes, data, got):
        w = summation.total(x)
        assert type(g) is type(w), n
        assert g.tobytes() == w.tobytes(), n


def test_total_of_negative_zeros_is_torchs_positive_zero():
    """torch's accumulators start from 0, so a sum of -0.0 is +0.0 (the numpy cascade, which
    starts from the first value, agrees only through its final `0 +`)."""
    for n in (1, 7, 9, 40, 1000):
        for dt in (np.float32, np.float64):
            assert not np.signbit(kernels.total(np.full(n, -0.0, dt)))


def test_total_refuses_other_dtypes():
    with pytest.raises(TypeError, match="float32 or float64"):
        kernels.total(np.zeros(3, np.int64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (5, 8), (4, 33), (64, 10), (7, 300), (2, 5000)])
def test_rows_is_the_numpy_cascade(shape, dtype, monkeypatch):
    from detachviz.engine import summation

    rng = np.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 6, shape)).astype(dtype)
    got = summation.rows(x)
    monkeypatch.setattr(kernels, "available", False)
    want = summation.rows(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_rows_refuses_mixed_formats_and_partial_rows():
    with pytest.raises(TypeError, match="one format"):
        kernels.rows(np.zeros(6, np.float32), np.zeros(2))
    with pytest.raises(ValueError, match="whole rows"):
        kernels.rows(np.zeros(7, np.float32), np.zeros(2, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape", [(1, 1, 1), (2, 1, 20), (3, 4, 7), (17, 2, 8), (300, 1, 33), (5, 3, 130), (40, 2, 3)]
)
def test_columns_is_the_numpy_cascade(shape, dtype, monkeypatch):
    """over()'s layout: (r, outer, c) as a transposed view of a C-contiguous (outer, r, c)."""
    from detachviz.engine import summation

    r, outer, c = shape
    rng = np.random.default_rng(r * c)
    base = rng.standard_normal((outer, r, c)) * 10.0 ** rng.integers(-5, 6, (outer, r, c))
    x = base.astype(dtype).transpose(1, 0, 2)
    got = summation.columns(x)
    monkeypatch.setattr(kernels, "available", False)
    want = summation.columns(x)
    assert got.shape == want.shape == (outer, c)
    assert got.tobytes() == want.tobytes()


def test_columns_refuses_a_strided_last_axis():
    x = np.zeros((3, 2, 8), np.float32)[:, :, ::2]
    with pytest.raises(ValueError, match="unit column stride"):
        kernels.columns(x, np.zeros((2, 4), np.float32))


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(1,), (5,), (7, 1), (3, 8), (64, 10), (4, 33), (2, 3, 300)])
def test_softmax_rows_are_the_numpy_steps(shape, log, monkeypatch):
    """Forward and backward over the last dim, with rows of equal values, signed zeros, a
    nan, infinities and a very wide range mixed in."""
    from detachviz.engine import softmax

    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3, shape)).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    if flat.shape[0] >= 3:
        flat[0] = 2.5  # all equal
        flat[1, ::2] = -0.0
        flat[1, 1::2] = 0.0
        flat[2, 0] = np.nan if shape[-1] > 1 else np.inf
    with np.errstate(all="ignore"):
        y = softmax.forward(x, x.ndim - 1, log)
        back = softmax.backward(g, y, x.ndim - 1, log)
        monkeypatch.setattr(kernels, "available", False)
        want_y = softmax.forward(x, x.ndim - 1, log)
        want_back = softmax.backward(g, want_y, x.ndim - 1, log)
    assert y.shape == want_y.shape == shape
    for got, want in ((y, want_y), (back, want_back)):
        nan = np.isnan(want)  # a nan's sign bit is the arithmetic's to choose
        assert np.array_equal(np.isnan(got), nan)
        assert np.array_equal(_bits(got[~nan]), _bits(want[~nan]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("repeats", ["unique", "few", "many"])
def test_add_rows_is_np_add_at(dtype, repeats):
    rng = np.random.default_rng(11)
    n, num, dim = 640, 1000, 64
    high = {"unique": num, "few": 300, "many": 4}[repeats]
    index = rng.permutation(num)[:n] if repeats == "unique" else rng.integers(0, high, n)
    rows = (rng.standard_normal((n, dim)) * 10.0 ** rng.integers(-4, 5, (n, dim))).astype(dtype)
    rows[0] = -0.0  # np.add.at's 0 + -0 is +0
    got, want = np.zeros((num, dim), dtype), np.zeros((num, dim), dtype)
    kernels.add_rows(got, index.astype(np.int64), rows)
    np.add.at(want, index, rows)
    assert got.tobytes() == want.tobytes()


def test_add_rows_refuses_an_index_outside_and_leaves_out_alone():
    out = np.zeros((3, 2), np.float32)
    with pytest.raises(IndexError, match="outside"):
        kernels.add_rows(out, np.array([0, 3]), np.ones((2, 2), np.float32))
    assert not out.any()
    with pytest.raises(ValueError, match="int64 index"):
        kernels.add_rows(out, np.array([0, 1]), np.ones((3, 2), np.float32))
