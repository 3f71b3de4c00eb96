"""Matrix products (engine/blas.py). With torch's MKL (the `exact` extra) mm, addmm (so
nn.Linear), mv, dot, bmm and baddbmm are torch's bits, forward and backward, for every
operand layout torch reads differently (contiguous, transposed, strided); compared with
`.tolist() ==` against real torch. Without MKL (DETACHVIZ_NO_MKL=1, as CI reruns this file)
they are numpy's matmul.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import detachviz.torch as dv
from detachviz.engine import blas, mkl

EXACT = mkl.lapack_available()
needs_exact = pytest.mark.skipif(not EXACT, reason="MKL is not torch's (the exact extra, 2024.2)")


def _layouts(lib, t):
    """t as torch stores it three ways: contiguous, column-major (a transposed copy seen
    through .t()), and every other column of a wider matrix (neither: BLAS needs a copy)."""
    yield t
    yield t.t().contiguous().t()
    yield lib.cat([t, t], 1)[:, ::2]


def _pair(rt, shape, seed):
    rt.manual_seed(seed)
    dv.manual_seed(seed)
    return rt.randn(*shape), dv.randn(*shape)


@needs_exact
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mm_is_torchs_for_every_layout(rt, dtype):
    for m, k, n in itertools.product([1, 2, 7, 33], [1, 3, 64], [1, 5, 16]):
        ta, da = _pair(rt, (m, k), m * 100 + k)
        tb, db = _pair(rt, (k, n), k * 100 + n)
        ta, da = ta.to(getattr(rt, dtype)), da.to(getattr(dv, dtype))
        tb, db = tb.to(getattr(rt, dtype)), db.to(getattr(dv, dtype))
        pairs = zip(
            itertools.product(_layouts(rt, ta), _layouts(rt, tb)),
            itertools.product(_layouts(dv, da), _layouts(dv, db)),
        )
        for (x, y), (u, v) in pairs:
            assert (u @ v).tolist() == (x @ y).tolist(), (m, k, n)
            assert dv.mm(u, v).tolist() == rt.mm(x, y).tolist()


@needs_exact
def test_linear_layer_output_and_gradients_are_torchs(rt):
    for batch, fin, fout in [(1, 32, 1), (16, 1, 32), (64, 20, 10), (128, 64, 32), (3, 300, 7)]:
        rt.manual_seed(batch)
        dv.manual_seed(batch)
        want_m, got_m = rt.nn.Linear(fin, fout), dv.nn.Linear(fin, fout)
        want_x, got_x = rt.randn(batch, fin), dv.randn(batch, fin)
        want_x.requires_grad_()
        got_x.requires_grad_()
        want, got = want_m(want_x), got_m(got_x)
        assert got.tolist() == want.tolist()
        (want * want).sum().backward()
        (got * got).sum().backward()
        assert got_m.weight.grad.tolist() == want_m.weight.grad.tolist()
        assert got_m.bias.grad.tolist() == want_m.bias.grad.tolist()
        assert got_x.grad.tolist() == want_x.grad.tolist()


@needs_exact
def test_addmm_passes_alpha_and_beta_to_gemm_as_torch(rt):
    tc, dc = _pair(rt, (5,), 1)
    ta, da = _pair(rt, (7, 3), 2)
    tb, db = _pair(rt, (3, 5), 3)
    want = rt.addmm(tc, ta, tb, beta=0.5, alpha=2.0)
    assert dv.addmm(dc, da, db, beta=0.5, alpha=2.0).tolist() == want.tolist()


@needs_exact
def test_mv_dot_and_bmm_are_torchs(rt):
    for m, n in itertools.product([1, 7, 20, 128], [3, 20, 300]):
        ta, da = _pair(rt, (m, n), m + n)
        tx, dx = _pair(rt, (n,), n)
        for x, u in zip(_layouts(rt, ta), _layouts(dv, da)):
            assert (u @ dx).tolist() == (x @ tx).tolist(), (m, n)
    for n in [1, 2, 17, 100, 4097]:
        tx, dx = _pair(rt, (n,), n)
        ty, dy = _pair(rt, (n,), n + 1)
        assert dv.dot(dx, dy).item() == rt.dot(tx, ty).item()
        assert (dx[::2] @ dy[::2]).item() == (tx[::2] @ ty[::2]).item()
    # bmm: under 400 multiply-adds per matrix a plain loop, above it MKL's batched gemm
    for bs, m, k, n in itertools.product([1, 3], [1, 4, 10], [1, 6, 40], [1, 5, 12]):
        ta, da = _pair(rt, (bs, m, k), m * k)
        tb, db = _pair(rt, (bs, k, n), k * n)
        assert dv.bmm(da, db).tolist() == rt.bmm(ta, tb).tolist(), (bs, m, k, n)
        at, bt = ta.transpose(1, 2).contiguous().transpose(1, 2), tb.mT.contiguous().mT
        au, bu = da.transpose(1, 2).contiguous().transpose(1, 2), db.mT.contiguous().mT
        assert dv.bmm(au, bu).tolist() == rt.bmm(at, bt).tolist(), (bs, m, k, n)
        ts, ds = rt.cat([ta, ta], 2)[:, :, ::2], dv.cat([da, da], 2)[:, :, ::2]
        assert dv.bmm(ds, db).tolist() == rt.bmm(ts, tb).tolist(), (bs, m, k, n)


@needs_exact
def test_baddbmm_is_torchs_with_beta_alpha_and_a_broadcast_input(rt):
    # what attention with a mask runs: baddbmm(mask, q, k^T, alpha=scale)
    for bs, m, k, n in [(1, 4, 6, 5), (3, 10, 40, 12), (2, 1, 64, 10)]:
        ta, da = _pair(rt, (bs, m, k), k)
        tb, db = _pair(rt, (bs, k, n), n)
        for shape in [(bs, m, n), (n,), (m, 1)]:
            tc, dc = _pair(rt, shape, m)
            for beta, alpha in [(1, 1), (0.5, 2.0), (0, 0.125)]:
                want = rt.baddbmm(tc, ta, tb, beta=beta, alpha=alpha)
                got = dv.baddbmm(dc, da, db, beta=beta, alpha=alpha)
                assert got.tolist() == want.tolist(), (bs, m, k, n, shape, beta)


@needs_exact
def test_a_small_training_loop_stays_torchs_to_the_bit(rt):
    def train(lib):
        lib.manual_seed(1)
        x = lib.linspace(-3, 3, 64).unsqueeze(1)
        y = x.pow(3) - 2 * x
        model = lib.nn.Sequential(lib.nn.Linear(1, 32), lib.nn.Tanh(), lib.nn.Linear(32, 1))
        opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        for _ in range(20):
            loss = lib.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return [p.tolist() for p in model.parameters()], model(lib.tensor([[0.5]])).item()

    assert train(dv) == train(rt)


def test_without_mkl_products_are_numpys(monkeypatch):
    monkeypatch.setattr(blas._Lib, "checked", True)
    monkeypatch.setattr(blas._Lib, "fns", {})
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((7, 20), np.float32), rng.standard_normal((20, 5), np.float32)
    x, c = rng.standard_normal(20, np.float32), rng.standard_normal(5, np.float32)
    ab = rng.standard_normal((3, 7, 20), np.float32), rng.standard_normal((3, 20, 5), np.float32)
    assert np.array_equal(blas.mm(a, b), np.matmul(a, b))
    assert np.array_equal(blas.addmm(c, a, b, 1, 1), np.matmul(a, b) + c)
    assert np.array_equal(blas.mv(a, x), np.dot(a, x))
    assert np.array_equal(blas.dot(x, x), np.dot(x, x))
    assert np.array_equal(blas.bmm(*ab), np.matmul(*ab))


def test_other_dtypes_and_empty_products_are_numpys():
    ints = np.arange(12).reshape(3, 4), np.arange(8).reshape(4, 2)
    assert np.array_equal(blas.mm(*ints), np.matmul(*ints))
    empty = np.zeros((3, 0), np.float32), np.zeros((0, 2), np.float32)
    assert np.array_equal(blas.mm(*empty), np.zeros((3, 2), np.float32))
    bias = np.ones(2, np.float32)
    assert np.array_equal(blas.addmm(bias, *empty, 1, 1), np.ones((3, 2), np.float32))


def test_products_agree_with_numpy_to_rounding():
    rng = np.random.default_rng(1)
    for dt in (np.float32, np.float64):
        a, b = rng.standard_normal((33, 64)).astype(dt), rng.standard_normal((64, 16)).astype(dt)
        for x, y in itertools.product([a, np.asfortranarray(a)], [b, b.T.copy().T]):
            np.testing.assert_allclose(blas.mm(x, y), np.matmul(x, y), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(blas.mv(a, b[:, 0]), a @ b[:, 0], rtol=1e-5, atol=1e-5)


@needs_exact
def test_read_only_operands_take_the_same_call(rt):
    """Operands whose address the buffer protocol cannot give (read-only numpy arrays, as
    expanded tensors are) go through numpy's ctypes pointer: the same MKL call, torch's bits."""
    ta, da = _pair(rt, (20, 20), 5)
    tx, dx = _pair(rt, (20,), 6)
    a, x = da.numpy().copy(), dx.numpy().copy()
    want, want_mm = (ta @ tx).tolist(), (ta @ tx[:, None]).tolist()
    want_cols = (ta.t().contiguous().t() @ tx).tolist()
    for ro_a, ro_x in itertools.product([False, True], repeat=2):
        a2, x2 = a.copy(), x.copy()
        a2.setflags(write=not ro_a)
        x2.setflags(write=not ro_x)
        assert blas.mv(a2, x2).tolist() == want, (ro_a, ro_x)
        assert blas.mv(a2.T.copy().T, x2).tolist() == want_cols  # column-major: 'n' gemv
        assert blas.mm(a2, x2[:, None]).tolist() == want_mm
    rows = (rt.ones(5, 1) * 0.5, dv.ones(5, 1) * 0.5)
    assert (rows[1].expand(5, 20) @ dx).tolist() == (rows[0].expand(5, 20) @ tx).tolist()


@needs_exact
@pytest.mark.skipif(blas.kernels.mv is None, reason="the compiled kernels are not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_mv_makes_the_python_paths_call(monkeypatch, dtype):
    # the compiled mv takes the decisions blas.mv writes out in Python: the same gemv call,
    # so the same bits, for every layout of the matrix and stride of the vector (a layout it
    # leaves to Python, a copy, a negative stride, ends up in the Python path either way)
    rng = np.random.default_rng(7)
    for m, n in itertools.product([1, 2, 20, 65], [1, 3, 20]):
        base = rng.standard_normal((2 * m, 2 * n)).astype(dtype)
        vec = rng.standard_normal(2 * n).astype(dtype)
        mats = [base[:m, :n].copy(), base[:m, :n].copy(order="F"), base[:m, :n], base[::2, ::2]]
        mats += [base[:m, :n][::-1], rng.standard_normal((n, m)).astype(dtype).T]
        for a, x in itertools.product(mats, [vec[:n].copy(), vec[::2], vec[:n][::-1]]):
            compiled = blas.mv(a, x)
            with monkeypatch.context() as patch:
                patch.setattr(blas.kernels, "mv", None)
                python = blas.mv(a, x)
            assert compiled.dtype == python.dtype == dtype
            assert compiled.tobytes() == python.tobytes(), (m, n, a.strides, x.strides)


@needs_exact
@pytest.mark.skipif(blas.kernels.gemm_into is None, reason="the compiled kernels are not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_gemm_makes_the_python_paths_call(monkeypatch, dtype):
    # as for mv: mm and addmm's gemm, compiled or in Python, is one call with the same bits
    rng = np.random.default_rng(11)

    def layouts(rows: int, cols: int) -> list[np.ndarray]:
        wide = rng.standard_normal((rows, 2 * cols)).astype(dtype)
        return [
            wide[:, :cols].copy(),
            wide[:, :cols].copy(order="F"),
            wide[:, :cols],
            wide[:, ::2],
            rng.standard_normal((cols, rows)).astype(dtype).T,
        ]

    for m, k, n in itertools.product([1, 2, 9], [1, 3, 16], [1, 2, 7]):
        bias = rng.standard_normal(n).astype(dtype)
        for a, b in itertools.product(layouts(m, k), layouts(k, n)):
            compiled = (blas.mm(a, b), blas.addmm(bias, a, b, 0.5, 2.0))
            with monkeypatch.context() as patch:
                patch.setattr(blas.kernels, "gemm_into", None)
                python = (blas.mm(a, b), blas.addmm(bias, a, b, 0.5, 2.0))
            for c, p in zip(compiled, python):
                assert c.tobytes() == p.tobytes(), (m, k, n, a.strides, b.strides)
