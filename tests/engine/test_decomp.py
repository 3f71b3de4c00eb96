"""torch.linalg (engine/ops/decomp.py): gradients vs finite differences (float64) and real
torch, torch's grad_fn names, double backward and forward-mode AD vs torch, return types,
errors. Eigen/singular vectors enter the losses only through sign-invariant combinations."""

from __future__ import annotations

import math

import numpy as np
import pytest

import detachviz.torch as torch

RNG = np.random.default_rng(7)


def _spd(t, a):
    return a @ a.mT + 3.0 * t.eye(a.shape[-1], dtype=a.dtype)


def _sym(t, a):
    return a + a.mT


OPS = {
    "inv": (
        lambda t, a: t.linalg.inv(a + 3 * t.eye(3, dtype=a.dtype)),
        [(3, 3)],
        "LinalgInvExBackward0",
    ),
    "inv_batch": (
        lambda t, a: t.inverse(a + 3 * t.eye(2, dtype=a.dtype)),
        [(2, 2, 2)],
        "LinalgInvExBackward0",
    ),
    "det": (lambda t, a: t.linalg.det(a), [(3, 3)], "LinalgDetBackward0"),
    "det_batch": (lambda t, a: t.det(a), [(2, 2, 2)], "LinalgDetBackward0"),
    "slogdet": (
        lambda t, a: t.linalg.slogdet(a + 3 * t.eye(3, dtype=a.dtype)).logabsdet,
        [(3, 3)],
        "LinalgSlogdetBackward0",
    ),
    "logdet": (lambda t, a: t.logdet(_spd(t, a)), [(3, 3)], "WhereBackward0"),
    "solve": (
        lambda t, a, b: t.linalg.solve(a + 3 * t.eye(3, dtype=a.dtype), b),
        [(3, 3), (3, 2)],
        "LinalgSolveExBackward0",
    ),
    "solve_vec": (
        lambda t, a, b: t.linalg.solve(a + 3 * t.eye(3, dtype=a.dtype), b),
        [(3, 3), (3,)],
        "LinalgSolveExBackward0",
    ),
    "cholesky": (lambda t, a: t.linalg.cholesky(_spd(t, a)), [(3, 3)], "LinalgCholeskyExBackward0"),
    "cholesky_upper": (
        lambda t, a: t.linalg.cholesky(_spd(t, a), upper=True),
        [(3, 3)],
        "LinalgCholeskyExBackward0",
    ),
    "qr_r": (lambda t, a: t.linalg.qr(a).R, [(4, 3)], "LinalgQrBackward0"),
    "qr_q": (lambda t, a: t.linalg.qr(a)[0], [(3, 3)], "LinalgQrBackward0"),
    "qr_both": (lambda t, a: (lambda q, r: q @ r.exp())(*t.linalg.qr(a)), [(4, 2)], "MmBackward0"),
    "eigh_values": (
        lambda t, a: t.linalg.eigh(_sym(t, a)).eigenvalues,
        [(3, 3)],
        "LinalgEighBackward0",
    ),
    "eigh_vectors": (
        lambda t, a: (lambda l, v: (v * l.sin()) @ v.mT)(*t.linalg.eigh(_sym(t, a))),
        [(3, 3)],
        "MmBackward0",
    ),
    "eigvalsh": (lambda t, a: t.linalg.eigvalsh(_sym(t, a)), [(4, 4)], "LinalgEighBackward0"),
    "svdvals": (lambda t, a: t.linalg.svdvals(a), [(3, 2)], "LinalgSvdBackward0"),
    "svd_s": (lambda t, a: t.linalg.svd(a, full_matrices=False).S, [(2, 3)], "LinalgSvdBackward0"),
    "svd_u_tall": (
        lambda t, a: (lambda u, s, vh: (u * s.exp()) @ u.mT)(*t.linalg.svd(a, full_matrices=False)),
        [(4, 2)],
        "MmBackward0",
    ),
    "svd_vh_wide": (
        lambda t, a: (lambda u, s, vh: vh.mT @ (vh * s.unsqueeze(-1).exp()))(
            *t.linalg.svd(a, full_matrices=False)
        ),
        [(2, 4)],
        "MmBackward0",
    ),
    "svd_full_square": (
        lambda t, a: (lambda u, s, vh: u @ t.diag(s.exp()) @ vh)(*t.linalg.svd(a)),
        [(3, 3)],
        "MmBackward0",
    ),
    "pinv_tall": (lambda t, a: t.linalg.pinv(a), [(4, 2)], "LinalgPinvBackward0"),
    "pinv_wide": (lambda t, a: t.pinverse(a), [(2, 3)], "LinalgPinvBackward0"),
    "matrix_norm_fro": (
        lambda t, a: t.linalg.matrix_norm(a),
        [(2, 3)],
        "LinalgVectorNormBackward0",
    ),
    "matrix_norm_nuc": (lambda t, a: t.linalg.matrix_norm(a, "nuc"), [(3, 2)], "SumBackward1"),
    "matrix_norm_2": (lambda t, a: t.linalg.matrix_norm(a, 2), [(3, 3)], "AmaxBackward0"),
    "matrix_norm_inf": (lambda t, a: t.linalg.matrix_norm(a, math.inf), [(3, 3)], "AmaxBackward0"),
    "matrix_norm_1_keep": (
        lambda t, a: t.linalg.matrix_norm(a, 1, keepdim=True),
        [(2, 3)],
        "AmaxBackward0",
    ),
    "norm_vec": (lambda t, a: t.linalg.norm(a), [(2, 3)], "LinalgVectorNormBackward0"),
    "norm_ord3": (lambda t, a: t.linalg.norm(a, 3), [(4,)], "LinalgVectorNormBackward0"),
    "norm_dim": (lambda t, a: t.linalg.norm(a, dim=1), [(2, 3)], "LinalgVectorNormBackward0"),
    "norm_matrix": (
        lambda t, a: t.linalg.norm(a, "fro", dim=(0, 1)),
        [(2, 3)],
        "LinalgVectorNormBackward0",
    ),
    "vector_norm": (
        lambda t, a: t.linalg.vector_norm(a, 1, dim=0),
        [(2, 3)],
        "LinalgVectorNormBackward0",
    ),
}


def _inputs(shapes):
    return [RNG.uniform(-1.0, 1.0, s) for s in shapes]


def _loss(t, out, w):
    return (out * t.tensor(w)).sum()


def _grads(t, f, arrays, w, create_graph=False):
    xs = [t.tensor(a, requires_grad=True) for a in arrays]
    out = f(t, *xs)
    gs = t.autograd.grad(_loss(t, out, w), xs, create_graph=create_graph, allow_unused=True)
    return xs, out, gs


def _value(f, arrays, w):
    with torch.no_grad():
        return float(_loss(torch, f(torch, *[torch.tensor(a) for a in arrays]), w))


def _out_weights(f, arrays):
    with torch.no_grad():
        shape = tuple(f(torch, *[torch.tensor(a) for a in arrays]).shape)
    return RNG.uniform(-1.0, 1.0, shape)


@pytest.mark.parametrize("name", list(OPS))
def test_gradient_matches_finite_differences(name):
    f, shapes, _ = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    _, _, grads = _grads(torch, f, arrays, w)
    eps = 1e-6
    for a, g in zip(arrays, grads):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            a[idx] += eps
            hi = _value(f, arrays, w)
            a[idx] -= 2 * eps
            lo = _value(f, arrays, w)
            a[idx] += eps
            num[idx] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(OPS))
def test_value_gradient_and_grad_fn_match_torch(rt, name):
    f, shapes, grad_fn = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    _, ours_out, ours = _grads(torch, f, arrays, w)
    _, theirs_out, theirs = _grads(rt, f, arrays, w)
    assert type(ours_out.grad_fn).__name__ == type(theirs_out.grad_fn).__name__ == grad_fn
    np.testing.assert_allclose(
        ours_out.detach().numpy(), theirs_out.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10)


DOUBLE = ["inv", "det", "slogdet", "solve", "solve_vec", "cholesky", "qr_both", "eigh_values"]
DOUBLE += ["eigh_vectors", "svdvals", "svd_u_tall", "pinv_tall", "pinv_wide"]


@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_matches_torch(rt, name):
    f, shapes, _ = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    res = []
    for t in (torch, rt):
        xs, _, gs = _grads(t, f, arrays, w, create_graph=True)
        second = sum((g * g.sin()).sum() for g in gs)
        hs = t.autograd.grad(second, xs, allow_unused=True)
        res.append([None if h is None else h.numpy() for h in hs])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


JVP = [n for n in OPS if n not in ("svd_full_square",)]


@pytest.mark.parametrize("name", JVP)
def test_forward_ad_matches_torch(rt, name):
    f, shapes, _ = OPS[name]
    arrays = _inputs(shapes)
    tangents = _inputs(shapes)
    res = []
    for t in (torch, rt):
        fwad = t.autograd.forward_ad
        with fwad.dual_level():
            xs = [fwad.make_dual(t.tensor(a), t.tensor(v)) for a, v in zip(arrays, tangents)]
            out = fwad.unpack_dual(f(t, *xs))
            res.append((out.primal.numpy().copy(), out.tangent.numpy().copy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-7, atol=1e-9)


def _forward(t):
    a = t.tensor([[4.0, 1.0], [2.0, 3.0]])
    s = t.tensor([[2.0, 1.0], [1.0, 2.0]])
    return {
        "slogdet": repr(t.linalg.slogdet(a)),
        "det": repr(t.det(a)),
        "inv": repr(t.linalg.inv(a)),
        "solve": repr(t.linalg.solve(a, t.tensor([1.0, 2.0]))),
        "eigh": repr(t.linalg.eigh(s)),
        "cholesky": repr(t.linalg.cholesky(s)),
        "svdvals": repr(t.linalg.svdvals(a)),
        "norm": repr(t.linalg.norm(a)),
        "matrix_norm_nuc": repr(t.linalg.matrix_norm(a, "nuc")),
        "qr_r": repr(t.linalg.qr(a, mode="r").R),
        "svd_types": repr(type(t.linalg.svd(a)).__name__),
    }


def test_forward_values_and_printing_match_torch(rt):
    ours, theirs = _forward(torch), _forward(rt)
    assert ours == theirs


def test_saved_attributes_match_torch(rt):
    def saved(t):
        a = t.tensor([[4.0, 1.0], [2.0, 3.0]], dtype=t.float64, requires_grad=True)
        rows = {}
        for name, out in {
            "det": t.linalg.det(a),
            "solve": t.linalg.solve(a, t.ones(2, dtype=t.float64)),
            "cholesky": t.linalg.cholesky(a @ a.mT, upper=True),
            "svd": t.linalg.svd(a)[1],
            "inv": t.linalg.inv(a),
        }.items():
            fn = out.grad_fn
            names = sorted(n for n in dir(fn) if n.startswith("_saved_"))
            vals = []
            for n in names:
                v = getattr(fn, n)
                vals.append(np.round(v.detach().numpy(), 8).tolist() if hasattr(v, "numpy") else v)
            rows[name] = (names, vals)
        return rows

    assert saved(torch) == saved(rt)


ERRORS = {
    "inv_nonsquare": lambda t: t.linalg.inv(t.ones(2, 3)),
    "inv_1d": lambda t: t.linalg.inv(t.ones(3)),
    "cholesky_not_pd": lambda t: t.linalg.cholesky(-t.eye(2)),
    "det_int": lambda t: t.linalg.det(t.ones(2, 2, dtype=t.int64)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(rt, name):
    got = []
    for t in (torch, rt):
        with pytest.raises(Exception) as info:
            ERRORS[name](t)
        got.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    assert got[0] == got[1]


def test_linalg_is_a_submodule_a_script_can_import(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "s.py"
    script.write_text(
        "import torch.linalg\nfrom torch.linalg import solve\nimport torch\n"
        "print(solve(torch.eye(2), torch.ones(2)), torch.linalg.det(torch.eye(2)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "detachviz", "run", str(script)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "tensor([1., 1.]) tensor(1.)\n"
