"""The tensor ops of issue 16 (layout, scan, scatter, sort, pointwise, the extra elementary
functions and their in-place forms): gradients vs finite differences (float64) and real
torch, torch's grad_fn names and saved attributes, double backward and forward-mode AD vs
torch, values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch

RNG = np.random.default_rng(16)


def _idx(t, v):
    return t.tensor(v)


# name -> (f(t, *inputs), input shapes, torch's grad_fn name of the result)
OPS = {
    "tril": (lambda t, a: a.tril(), [(3, 4)], "TrilBackward0"),
    "triu_k": (lambda t, a: t.triu(a, 1), [(2, 3, 3)], "TriuBackward0"),
    "tril_neg": (lambda t, a: a.tril(diagonal=-1), [(4, 3)], "TrilBackward0"),
    "gather": (
        lambda t, a: a.gather(1, _idx(t, [[0, 2], [1, 1], [3, 0]])),
        [(3, 4)],
        "GatherBackward0",
    ),
    "gather_dim0": (lambda t, a: t.gather(a, 0, _idx(t, [[0, 2, 1]])), [(3, 3)], "GatherBackward0"),
    "scatter_src": (
        lambda t, a, b: a.scatter(1, _idx(t, [[0, 2], [1, 3]]), b),
        [(2, 4), (2, 2)],
        "ScatterBackward0",
    ),
    "scatter_value": (
        lambda t, a: a.scatter(0, _idx(t, [[1, 0, 1]]), 0.5),
        [(2, 3)],
        "ScatterBackward1",
    ),
    "scatter_add": (
        lambda t, a, b: t.scatter_add(a, 0, _idx(t, [[1, 0], [1, 1]]), b),
        [(2, 2), (2, 2)],
        "ScatterAddBackward0",
    ),
    "index_select": (
        lambda t, a: a.index_select(1, _idx(t, [2, 0, 2])),
        [(2, 3)],
        "IndexSelectBackward0",
    ),
    "index_add": (
        lambda t, a, b: a.index_add(0, _idx(t, [2, 0, 2]), b, alpha=2.0),
        [(3, 2), (3, 2)],
        "IndexAddBackward0",
    ),
    "masked_select": (
        lambda t, a: a.masked_select(_idx(t, [True, False, True])),
        [(2, 3)],
        "MaskedSelectBackward0",
    ),
    "masked_scatter": (
        lambda t, a, b: a.masked_scatter(_idx(t, [[True, False], [False, True]]), b),
        [(2, 2), (3,)],
        "MaskedScatterBackward0",
    ),
    "cumsum": (lambda t, a: a.cumsum(1), [(2, 4)], "CumsumBackward0"),
    "cumsum_neg": (lambda t, a: t.cumsum(a, dim=-2), [(3, 2)], "CumsumBackward0"),
    "cumprod": (lambda t, a: a.cumprod(0), [(4, 2)], "CumprodBackward0"),
    "cumprod_zero": (
        lambda t, a: (a * _idx(t, [1.0, 0.0, 1.0, 0.0])).cumprod(0),
        [(4,)],
        "CumprodBackward0",
    ),
    "sort": (lambda t, a: a.sort(1).values, [(2, 4)], "SortBackward0"),
    "sort_desc": (lambda t, a: t.sort(a, dim=0, descending=True)[0], [(3, 2)], "SortBackward0"),
    "topk": (lambda t, a: a.topk(2).values, [(3, 4)], "TopkBackward0"),
    "topk_small": (
        lambda t, a: t.topk(a, 2, dim=0, largest=False).values,
        [(4, 2)],
        "TopkBackward0",
    ),
    "repeat": (lambda t, a: a.repeat(2, 1, 3), [(2, 2)], "RepeatBackward0"),
    "tile": (lambda t, a: a.tile(2), [(2, 3)], "RepeatBackward0"),
    "repeat_interleave": (lambda t, a: a.repeat_interleave(2, dim=1), [(2, 3)], "ViewBackward0"),
    "repeat_interleave_flat": (lambda t, a: t.repeat_interleave(a, 3), [(2, 2)], "ViewBackward0"),
    "repeat_interleave_t": (
        lambda t, a: a.repeat_interleave(_idx(t, [1, 0, 2]), dim=0),
        [(3, 2)],
        "IndexSelectBackward0",
    ),
    "flip": (lambda t, a: a.flip(0, 1), [(2, 3)], "FlipBackward0"),
    "roll": (lambda t, a: a.roll(1, 1), [(2, 3)], "RollBackward0"),
    "roll_flat": (lambda t, a: t.roll(a, -2), [(2, 3)], "RollBackward0"),
    "roll_dims": (lambda t, a: a.roll((1, -1), (0, 1)), [(2, 3)], "RollBackward0"),
    "diag_vec": (lambda t, a: a.diag(1), [(3,)], "DiagEmbedBackward0"),
    "diag_mat": (lambda t, a: t.diag(a, -1), [(3, 3)], "DiagonalBackward0_copy"),
    "diagonal": (lambda t, a: a.diagonal() * 1.0, [(3, 4)], "MulBackward0"),
    "diagonal_view": (lambda t, a: t.diagonal(a, 1, 0, 2), [(3, 2, 4)], "DiagonalBackward0"),
    "diag_embed": (lambda t, a: t.diag_embed(a, offset=1), [(2, 3)], "DiagEmbedBackward0"),
    "outer": (lambda t, a, b: t.outer(a, b), [(3,), (2,)], "MulBackward0"),
    "round": (lambda t, a: a.round() + a, [(3,)], "AddBackward0"),
    "round_dec": (lambda t, a: t.round(a, decimals=2), [(3,)], "RoundBackward1"),
    "floor": (lambda t, a: a.floor(), [(3,)], "FloorBackward0"),
    "ceil": (lambda t, a: t.ceil(a), [(3,)], "CeilBackward0"),
    "trunc": (lambda t, a: a.trunc(), [(3,)], "TruncBackward0"),
    "frac": (lambda t, a: a.frac(), [(3,)], "FracBackward0"),
    "sign": (lambda t, a: t.sign(a), [(3,)], "SignBackward0"),
    "lerp": (lambda t, a, b: t.lerp(a, b, 0.3), [(2, 3), (2, 3)], "LerpBackward0"),
    "lerp_big": (lambda t, a, b: a.lerp(b, 0.8), [(3,), (3,)], "LerpBackward0"),
    "lerp_t": (lambda t, a, b, w: t.lerp(a, b, w), [(2, 3), (2, 3), (3,)], "LerpBackward1"),
    "addcmul": (
        lambda t, a, b, c: t.addcmul(a, b, c, value=0.5),
        [(2, 3), (2, 3), (3,)],
        "AddcmulBackward0",
    ),
    "addcdiv": (
        lambda t, a, b, c: a.addcdiv(b, c + 3.0, value=2),
        [(2, 3), (2, 3), (2, 3)],
        "AddcdivBackward0",
    ),
    "tan": (lambda t, a: a.tan(), [(3,)], "TanBackward0"),
    "asin": (lambda t, a: t.asin(a * 0.5), [(3,)], "AsinBackward0"),
    "acos": (lambda t, a: (a * 0.5).acos(), [(3,)], "AcosBackward0"),
    "atan": (lambda t, a: t.atan(a), [(3,)], "AtanBackward0"),
    "sinh": (lambda t, a: a.sinh(), [(3,)], "SinhBackward0"),
    "cosh": (lambda t, a: t.cosh(a), [(3,)], "CoshBackward0"),
    "log1p": (lambda t, a: (a + 1.5).log1p(), [(3,)], "Log1PBackward0"),
    "expm1": (lambda t, a: t.expm1(a), [(3,)], "Expm1Backward0"),
    "log2": (lambda t, a: (a + 2).log2(), [(3,)], "Log2Backward0"),
    "log10": (lambda t, a: t.log10(a + 2), [(3,)], "Log10Backward0"),
    "exp2": (lambda t, a: a.exp2(), [(3,)], "Exp2Backward0"),
    "rsqrt": (lambda t, a: (a + 2).rsqrt(), [(3,)], "RsqrtBackward0"),
    "sin_": (lambda t, a: (a * 1).sin_(), [(3,)], "SinBackward0"),
    "cos_": (lambda t, a: (a * 1).cos_(), [(3,)], "CosBackward0"),
    "tan_": (lambda t, a: (a * 1).tan_(), [(3,)], "TanBackward0"),
    "rsqrt_": (lambda t, a: (a + 2).rsqrt_(), [(3,)], "RsqrtBackward0"),
    "reciprocal_": (lambda t, a: (a + 2).reciprocal_(), [(3,)], "ReciprocalBackward0"),
    "log1p_": (lambda t, a: (a + 2).log1p_(), [(3,)], "Log1PBackward0"),
    "floor_": (lambda t, a: (a * 1).floor_(), [(3,)], "FloorBackward0"),
    "sin_view": (lambda t, a: _on_view(a, "sin_"), [(2, 3)], "CopySlices"),
    "scatter_": (
        lambda t, a, b: (a * 1).scatter_(1, _idx(t, [[0], [2]]), b),
        [(2, 3), (2, 1)],
        "ScatterBackward0",
    ),
    "scatter_add_": (
        lambda t, a, b: (a * 1).scatter_add_(0, _idx(t, [[1, 0, 1]]), b),
        [(2, 3), (1, 3)],
        "ScatterAddBackward0",
    ),
    "index_add_": (
        lambda t, a, b: (a * 1).index_add_(1, _idx(t, [0, 0]), b),
        [(2, 3), (2, 2)],
        "IndexAddBackward0",
    ),
    "lerp_": (lambda t, a, b: (a * 1).lerp_(b, 0.25), [(3,), (3,)], "LerpBackward0"),
    "addcmul_": (lambda t, a, b, c: (a * 1).addcmul_(b, c), [(3,), (3,), (3,)], "AddcmulBackward0"),
    "cumsum_": (lambda t, a: (a * 1).cumsum_(0), [(3,)], "CumsumBackward0"),
}

# einsum: a composition; torch's grad_fn is the composition's last op
OPS.update(
    {
        "einsum_mm": (
            lambda t, a, b: t.einsum("ij,jk->ik", a, b),
            [(3, 4), (4, 2)],
            "ViewBackward0",
        ),
        "einsum_implicit": (
            lambda t, a, b: t.einsum("ij,jk", a, b),
            [(2, 3), (3, 2)],
            "ViewBackward0",
        ),
        "einsum_batch": (
            lambda t, a, b: t.einsum("bij,bjk->bik", a, b),
            [(2, 2, 3), (2, 3, 2)],
            "ViewBackward0",
        ),
        "einsum_dot": (lambda t, a, b: t.einsum("i,i->", a, b), [(3,), (3,)], "ViewBackward0"),
        "einsum_outer": (lambda t, a, b: t.einsum("i,j->ij", a, b), [(3,), (2,)], "MulBackward0"),
        "einsum_diag": (lambda t, a: t.einsum("ii->i", a), [(3, 3)], "PermuteBackward0"),
        "einsum_trace": (lambda t, a: t.einsum("ii", a), [(3, 3)], "SumBackward1"),
        "einsum_transpose": (lambda t, a: t.einsum("ij->ji", a), [(2, 3)], "PermuteBackward0"),
        "einsum_attention": (
            lambda t, a, b: t.einsum("bhqd,bhkd->bhqk", a, b),
            [(1, 2, 2, 3), (1, 2, 3, 3)],
            "ViewBackward0",
        ),
        "einsum_ellipsis": (
            lambda t, a, b: t.einsum("...ij,...jk->...ik", a, b),
            [(2, 2, 3), (3, 2)],
            "ViewBackward0",
        ),
        "einsum_three": (
            lambda t, a, b, c: t.einsum("ijk,ikl,il->j", a, b, c),
            [(2, 2, 3), (2, 3, 2), (2, 2)],
            "ViewBackward0",
        ),
        "einsum_list": (
            lambda t, a, b: t.einsum("bn,anm,bm->ba", [a, b, a]),
            [(2, 3), (2, 3, 3)],
            "ViewBackward0",
        ),
    }
)


def _on_view(a, method):
    b = a * 1
    getattr(b[0], method)()
    return b


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
        got = np.zeros_like(a) if g is None else g.numpy()
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(OPS))
def test_value_gradient_and_grad_fn_match_torch(rt, name):
    f, shapes, grad_fn = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    _, ours_out, ours = _grads(torch, f, arrays, w)
    _, theirs_out, theirs = _grads(rt, f, arrays, w)
    assert type(ours_out.grad_fn).__name__ == type(theirs_out.grad_fn).__name__ == grad_fn
    assert len(ours_out.grad_fn.next_functions) == len(theirs_out.grad_fn.next_functions)
    np.testing.assert_allclose(ours_out.detach().numpy(), theirs_out.detach().numpy(), rtol=1e-12)
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None or not np.any(a.numpy())
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


DOUBLE = ["gather", "scatter_src", "scatter_add", "index_select", "index_add", "masked_select"]
DOUBLE += ["cumsum", "cumprod", "sort", "topk", "repeat", "flip", "roll", "diag_vec", "diag_mat"]
DOUBLE += ["diagonal_view", "diag_embed", "lerp_t", "addcmul", "addcdiv", "tan", "asin", "sinh"]
DOUBLE += ["log1p", "rsqrt", "exp2", "masked_scatter", "tril", "repeat_interleave_t"]


@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_matches_torch(rt, name):
    f, shapes, _ = OPS[name]
    arrays = _inputs(shapes)
    w = _out_weights(f, arrays)
    res = []
    for t in (torch, rt):
        xs, _, gs = _grads(t, f, arrays, w, create_graph=True)
        second = sum(((g * g.sin()).sum() for g in gs if g is not None and g.requires_grad), 0.0)
        if isinstance(second, float):
            res.append([None for _ in xs])
            continue
        hs = t.autograd.grad(second, xs, allow_unused=True)
        res.append([None if h is None else h.numpy() for h in hs])
    for a, b in zip(*res):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


JVP = [n for n in OPS if not n.endswith("_") and n != "sin_view"]


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
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-9, atol=1e-12)


def test_saved_attributes_match_torch(rt):
    def saved(t):
        x = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        i = t.tensor([[0, 2], [1, 0]])
        outs = {
            "gather": x.gather(1, i),
            "tril": x.tril(-1),
            "cumsum": x.cumsum(-1),
            "topk": x.topk(2, dim=0).values,
            "repeat": x.repeat(2, 1),
            "roll": x.roll((1,), (1,)),
            "flip": x.flip(-1),
            "diag_embed": t.diag_embed(x),
            "index_add": x.index_add(0, t.tensor([1]), x[:1], alpha=3),
            "diagonal": x.diagonal(0, -2, -1),
            "lerp": x.lerp(x * 2, 0.25),
            "addcmul": x.addcmul(x, x, value=2),
        }
        rows = {}
        for k, v in outs.items():
            fn = v.grad_fn
            names = sorted(n for n in dir(fn) if n.startswith("_saved_"))
            vals = []
            for n in names:
                a = getattr(fn, n)
                vals.append(a.tolist() if hasattr(a, "tolist") else a)
            rows[k] = (names, vals)
        return rows

    assert saved(torch) == saved(rt)


def _forward_cases(t):
    x = t.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 0.5, 4.0]])
    return {
        "topk": repr(t.topk(x, 2)),
        "topk_small": repr(x.topk(3, dim=1, largest=False)),
        "sort": repr(x.sort(dim=1, stable=True)),
        "sort_desc": repr(t.sort(x, descending=True, stable=True)),
        "argsort": repr(x.argsort(dim=0, descending=True)),
        "msort": repr(t.msort(x)),
        "cumsum_int": repr(t.tensor([1, 2, 3]).cumsum(0)),
        "cumprod_dtype": repr(t.cumprod(t.tensor([1, 2, 3]), 0, dtype=t.float64)),
        "round": repr(t.round(t.tensor([0.5, 1.5, 2.5, -0.5, -1.5]))),
        "round_dec": repr(t.round(t.tensor([1.2345, 2.3456, 155.0]), decimals=2)),
        "round_neg_dec": repr(t.round(t.tensor([1234.5, 155.0]), decimals=-2)),
        "sign_int": repr(t.sign(t.tensor([-3, 0, 2]))),
        "floor_int": repr(t.floor(t.tensor([1, 2]))),
        "repeat_interleave": repr(t.repeat_interleave(t.tensor([1, 2, 0]))),
        "tril_int": repr(t.tril(t.ones(3, 3, dtype=t.int64))),
        "diag": repr(t.diag(t.tensor([1.0, 2.0]), -1)),
        "outer": repr(t.outer(t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0, 5.0]))),
        "masked_select": repr(x.masked_select(x > 1)),
        "scatter_add": repr(t.zeros(5).scatter_add(0, t.tensor([0, 1, 1, 4]), t.ones(4))),
        "index_add_int": repr(
            t.zeros(3, dtype=t.int64).index_add(0, t.tensor([0, 0]), t.tensor([2, 3]))
        ),
        "roll": repr(t.arange(6).reshape(2, 3).roll(1)),
        "lerp": repr(t.lerp(t.zeros(3), t.ones(3), t.tensor([0.1, 0.5, 0.9]))),
        "addcdiv": repr(t.addcdiv(t.ones(2), t.ones(2), t.tensor([2.0, 4.0]), value=3)),
        "frac": repr(t.tensor([1.5, -2.25]).frac()),
        "inplace_floor": repr(t.tensor([1.5, -2.25]).floor_()),
    }


def test_forward_values_and_printing_match_torch(rt):
    assert _forward_cases(torch) == _forward_cases(rt)


ERRORS = {
    "tril_1d": lambda t: t.ones(3).tril(),
    "outer_2d": lambda t: t.outer(t.ones(2, 2), t.ones(2)),
    "gather_dims": lambda t: t.ones(2, 3).gather(1, t.tensor([0])),
    "gather_oob": lambda t: t.ones(2, 3).gather(1, t.tensor([[5]])),
    "index_select_2d": lambda t: t.ones(2, 3).index_select(1, t.tensor([[0]])),
    "topk_k": lambda t: t.ones(3).topk(4),
    "diagonal_same": lambda t: t.ones(2, 2).diagonal(0, 1, 1),
    "repeat_few": lambda t: t.ones(2, 2).repeat(2),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(rt, name):
    got = []
    for t in (torch, rt):
        with pytest.raises(Exception) as info:
            ERRORS[name](t)
        got.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    assert got[0] == got[1]


def test_unsupported_arguments_are_refused():
    x = torch.ones(2, 3)
    with pytest.raises(NotImplementedError):
        x.scatter(1, torch.tensor([[0]]), 1.0, reduce="add")
    with pytest.raises(NotImplementedError):
        x.gather(1, torch.tensor([[0]]), sparse_grad=True)


def test_diagonal_is_a_writable_view():
    x = torch.zeros(3, 3)
    d = x.diagonal()
    assert d._base is x
    d.add_(1.0)
    assert x.tolist() == [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]
