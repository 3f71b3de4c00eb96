"""Forward-mode AD: dual levels, make_dual/unpack_dual, tangents of every op family (vs central
finite differences and real torch), cuts (detach drops tangents, no_grad keeps them), in-place
ops and views sharing tangents, errors with torch's wording."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch
from detachviz.engine import forward_ad as fwad
from detachviz.engine import function, state

RNG = np.random.default_rng(5)


def _setitem(t, a, b):
    c = t.zeros(4, dtype=t.float64)
    c[1:3] = b * b
    c[0] = a[0]
    return c * a


def _inplace_chain(t, a, b):
    c = a * 1
    c.add_(b)
    c.mul_(b)
    c.div_(2)
    c.pow_(2)
    c.sub_(a, alpha=0.5)
    return c


def _inplace_unary(t, a):
    c = a.clone()
    c.exp_()
    c.sigmoid_()
    c.tanh_()
    c.sqrt_()
    c.log_()
    return c


def _view_inplace(t, a, b):
    c = a * 2
    c[1:].mul_(b[:2])  # an in-place op on a view writes into the base's tangent
    return c.sin()


def _copy(t, a, b):
    c = t.ones(3, dtype=t.float64)
    c.copy_(a)
    d = b.clone()
    d.copy_(t.ones(3, dtype=t.float64))  # a source without tangent zero-fills it
    return c * 2 + d


def _masked_put(t, a, b):
    c = a.clone()
    c[a > 0] = 0.0
    c[t.tensor([0, 2])] = b[:2]
    return c


# name -> (f(t, *inputs), input shapes, positive-only inputs?)
OPS = {
    "add_bcast": (lambda t, a, b: a + b, [(2, 3), (3,)], False),
    "add_alpha_scalar": (lambda t, a, b: t.add(a, b, alpha=2.5) + 1.5, [(3,), (3,)], False),
    "sub_rsub": (lambda t, a, b: (a - b) + (2 - a), [(2, 1), (1, 3)], False),
    "mul_scalar": (lambda t, a, b: a * b * 3.0, [(4, 1, 3), (2, 1)], False),
    "div": (lambda t, a, b: a / b + 2 / b, [(2, 3), (2, 1)], True),
    "pow_scalar": (lambda t, a: a**3 + a**0.5, [(3,)], True),
    "pow_tensor": (lambda t, a, b: a**b, [(3,), (3,)], True),
    "rpow": (lambda t, a: 2.0**a, [(3,)], False),
    "neg_abs": (lambda t, a: (-a).abs(), [(3,)], False),
    "exp_log_sqrt": (lambda t, a: a.exp() + a.log() + a.sqrt(), [(3,)], True),
    "trig": (lambda t, a: a.sin() * a.cos(), [(3,)], False),
    "tanh_sigmoid": (lambda t, a: a.tanh() + t.sigmoid(a), [(3,)], False),
    "relu_clamp": (lambda t, a: a.relu() + a.clamp(-0.3, 0.4), [(5,)], False),
    "reciprocal": (lambda t, a: a.reciprocal(), [(3,)], True),
    "sum_mean": (lambda t, a: a.sum() + a.mean(), [(2, 3)], False),
    "sum_dims": (
        lambda t, a: a.sum((0, 2)) + a.mean(-1, keepdim=True).sum((0, 2)),
        [(2, 3, 2)],
        False,
    ),
    "mm": (lambda t, a, b: a @ b, [(2, 3), (3, 4)], False),
    "addmm": (lambda t, a, b: t.addmm(b[0], a, b, beta=0.5, alpha=2.0), [(2, 3), (3, 3)], False),
    "linear": (lambda t, a, b: t.nn.functional.linear(a, b, b[1]), [(2, 3), (3, 3)], False),
    "mv_dot_vm": (lambda t, a, b: (a @ b).sum() + b @ b + (b @ a.t()).sum(), [(2, 3), (3,)], False),
    "bmm_bcast": (lambda t, a, b: a @ b, [(2, 2, 3), (3, 2)], False),
    "bmm": (lambda t, a, b: t.bmm(a, b), [(2, 2, 3), (2, 3, 2)], False),
    "views": (lambda t, a: a.view(3, 2).t().unsqueeze(0).squeeze(0).permute(1, 0), [(2, 3)], False),
    "expand_T": (lambda t, a: a.expand(2, 3).T, [(3,)], False),
    "select_slice": (lambda t, a: a[1] + a[0, ::2].sum() + a[:, 1:].sum(), [(2, 3)], False),
    "reshape_copy": (lambda t, a: a.t().reshape(6).flatten(), [(2, 3)], False),
    "index": (lambda t, a: a[[0, 0, 1]] + a[a > 0].sum(), [(2, 3)], False),
    "clone_to": (lambda t, a: a.clone() + a.float().double(), [(3,)], False),
    "setitem": (_setitem, [(4,), (2,)], False),
    "inplace_chain": (_inplace_chain, [(3,), (3,)], True),
    "inplace_unary": (_inplace_unary, [(3,)], False),
    "view_inplace": (_view_inplace, [(3,), (3,)], False),
    "copy_": (_copy, [(3,), (3,)], False),
    "masked_put": (_masked_put, [(4,), (3,)], False),
    "max_min": (lambda t, a: a.max() + a.min(1).values.sum() + a.amax(0).sum(), [(2, 3)], False),
    "maximum": (lambda t, a, b: t.maximum(a, b) + t.minimum(a, b) * 2, [(2, 3), (3,)], False),
    "softmax": (lambda t, a: a.softmax(1) + a.log_softmax(0), [(2, 3)], False),
    "logsumexp": (lambda t, a: a.logsumexp(1) + a.logsumexp((0, 1)), [(2, 3)], False),
    "cat_stack": (
        lambda t, a, b: t.cat([a, b.unsqueeze(0), a], 0) + t.stack([b, b]).sum(0),
        [(2, 3), (3,)],
        False,
    ),
    "where": (lambda t, a, b: t.where(a > 0, a, b) + t.where(b > 0, 1.0, a), [(2, 3), (3,)], False),
    "masked_fill": (
        lambda t, a, v: a.masked_fill(a > 0, v.sum()) + a.clone().masked_fill_(a < 0, 2.0),
        [(2, 3), (2,)],
        False,
    ),
    "split_unbind_chunk": (
        lambda t, a: (
            t.cat(a.split([1, 2], 1), 1) * 2
            + t.stack(a.t().unbind(0), 1)
            + t.cat(t.chunk(a, 2, 0), 0)
        ),
        [(2, 3)],
        False,
    ),
    "mlp": (lambda t, a, b: t.tanh(a @ b + 0.1).sum(-1), [(2, 3), (3, 2)], False),
}


def _inputs(shapes, positive):
    lo, hi = (0.5, 1.5) if positive else (-1.0, 1.0)
    return [RNG.uniform(lo, hi, s) for s in shapes]


def _jvp(t, f, arrays, tangents):
    F = t.autograd.forward_ad
    with F.dual_level():
        xs = [F.make_dual(t.tensor(a), t.tensor(v)) for a, v in zip(arrays, tangents)]
        out = f(t, *xs)
        primal, tangent = F.unpack_dual(out)
        return primal.numpy().copy(), tangent.numpy().copy()


def _value(f, arrays):
    return f(torch, *[torch.tensor(a) for a in arrays]).numpy().copy()


# float32 round trips cannot be checked by float64 finite differences
FD_OPS = [k for k in OPS if k != "clone_to"]


@pytest.mark.parametrize("name", FD_OPS)
def test_tangent_matches_finite_differences(name):
    f, shapes, positive = OPS[name]
    arrays = _inputs(shapes, positive)
    tangents = [RNG.uniform(-1.0, 1.0, s) for s in shapes]
    primal, tangent = _jvp(torch, f, arrays, tangents)
    eps = 1e-6
    hi = _value(f, [a + eps * v for a, v in zip(arrays, tangents)])
    lo = _value(f, [a - eps * v for a, v in zip(arrays, tangents)])
    np.testing.assert_allclose(primal, _value(f, arrays), rtol=1e-12)
    np.testing.assert_allclose(tangent, (hi - lo) / (2 * eps), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(OPS))
def test_tangent_matches_torch(rt, name):
    f, shapes, positive = OPS[name]
    arrays = _inputs(shapes, positive)
    tangents = [RNG.uniform(-1.0, 1.0, s) for s in shapes]
    ours = _jvp(torch, f, arrays, tangents)
    theirs = _jvp(rt, f, arrays, tangents)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# --- the API ------------------------------------------------------------------------------
def test_make_dual_aliases_its_primal_and_keeps_the_given_tangent():
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    tg = torch.tensor([1.0, -1.0])
    with fwad.dual_level() as level:
        x = fwad.make_dual(p, tg)
        u = fwad.unpack_dual(x)
        assert level == 0
        assert x._base is p and x.data_ptr() == p.data_ptr() and x._version == p._version
        assert x.grad_fn.name() == "ViewBackward0"
        assert type(u).__name__ == "UnpackedDualTensor" and u._fields == ("primal", "tangent")
        assert u.tangent is tg
        assert u.primal._base is p and u.primal.grad_fn.name() == "torch::autograd::Identity"
        assert fwad.unpack_dual(u.primal).tangent is None
        plain = fwad.make_dual(torch.tensor([3.0]), torch.tensor([1.0]))
        assert plain.grad_fn is None and not plain.requires_grad


def test_unpack_dual_outside_a_level_and_after_exit():
    x = torch.tensor([2.0])
    assert fwad.unpack_dual(x) == (x, None) and fwad.unpack_dual(x)[0] is x
    with fwad.dual_level():
        y = fwad.make_dual(x, torch.tensor([3.0])) * 2
        assert fwad.unpack_dual(y).tangent.tolist() == [6.0]
    assert fwad.unpack_dual(y).tangent is None and y._fw_tangent is None
    assert state.fw_hooks is None  # no level: the ops pay one `if` and nothing else


def test_dual_level_works_as_a_decorator_and_allows_reentry():
    @fwad.dual_level()
    def f(v):
        return fwad.unpack_dual(fwad.make_dual(v, torch.ones(1)).exp()).tangent

    assert f(torch.zeros(1)).tolist() == [1.0]
    assert f(torch.zeros(1)).tolist() == [1.0]
    assert state.fw_level == -1


def test_torch_autograd_forward_ad_attribute_is_this_module():
    assert torch.autograd.forward_ad is fwad
    assert torch.autograd.forward_ad.UnpackedDualTensor is fwad.UnpackedDualTensor


ERRORS = [
    (
        lambda t, F: F.make_dual(t.tensor([1.0]), t.tensor([1.0])),
        False,
        RuntimeError,
        "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
        "enter_dual_level() first.",
    ),
    (
        lambda t, F: F.make_dual(t.tensor([1]), t.tensor([1.0])),
        True,
        ValueError,
        "Expected primal to be floating point or complex, but got: torch.int64",
    ),
    (
        lambda t, F: F.make_dual(t.tensor([1.0]), t.tensor([1])),
        True,
        ValueError,
        "Expected tangent to be floating point or complex, but got: torch.int64",
    ),
    (
        lambda t, F: F.make_dual(F.make_dual(t.ones(1), t.ones(1)), t.ones(1)),
        True,
        RuntimeError,
        "Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
        "level 0 is not supported.",
    ),
    (
        lambda t, F: F.make_dual(t.ones(2), t.ones(1)),
        True,
        RuntimeError,
        "Trying to set a forward gradient that has a different size than that of the original "
        "Tensor, this is not supported. Tensor is of size [2] while the given forward gradient is "
        "of size [1].",
    ),
    (
        lambda t, F: F.enter_dual_level(),
        True,
        RuntimeError,
        "Nested forward mode AD is not supported at the moment",
    ),
    (
        lambda t, F: F.exit_dual_level(),
        False,
        RuntimeError,
        "Dual level must be a positive number.",
    ),
]


def _raise(t, i):
    f, in_level, exc, msg = ERRORS[i]
    F = t.autograd.forward_ad
    if not in_level:
        with pytest.raises(exc) as e:
            f(t, F)
        return e
    with F.dual_level():
        with pytest.raises(exc) as e:
            f(t, F)
    return e


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_use_torch_wording(i):
    assert str(_raise(torch, i).value) == ERRORS[i][3]
    assert state.fw_level == -1


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_error_wording_is_torchs(rt, i):
    assert str(_raise(rt, i).value) == ERRORS[i][3]


def test_an_op_without_a_jvp_rule_refuses_instead_of_dropping_the_tangent():
    from detachviz.engine.node import node_class

    cls = node_class("DetachvizTestNoJvpBackward0", (lambda F, g, s, a: g,))
    with fwad.dual_level():
        x = fwad.make_dual(torch.ones(2), torch.ones(2))
        with pytest.raises(NotImplementedError, match="DetachvizTestNoJvpBackward0"):
            function.apply(cls, "nojvp", (x,), x._data * 2)


# --- cuts -----------------------------------------------------------------------------------
CUTS = {
    "detach": (lambda t, x: x.detach(), None),
    "detach_": (lambda t, x: (x * 1).detach_(), None),
    "data": (lambda t, x: x.data, None),
    "tensor_copy": (lambda t, x: t.tensor(x), None),
    "no_grad": (lambda t, x: _no_grad(t, x), [3.0, -3.0]),
    "mixed": (lambda t, x: x * 2 + x.detach() * 5, [2.0, -2.0]),
    "int_cast": (lambda t, x: x.long(), None),
    "compare": (lambda t, x: x > 1, None),
}


def _no_grad(t, x):
    with t.no_grad():
        return x * 3


def _cut_tangent(t, name):
    F = t.autograd.forward_ad
    with F.dual_level():
        x = F.make_dual(t.tensor([1.0, 2.0]), t.tensor([1.0, -1.0]))
        tg = F.unpack_dual(CUTS[name][0](t, x)).tangent
        return None if tg is None else tg.tolist()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(CUTS))
def test_cuts_drop_tangents_but_no_grad_keeps_them(name):
    assert _cut_tangent(torch, name) == CUTS[name][1]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(CUTS))
def test_cut_behaviour_matches_torch(rt, name):
    assert _cut_tangent(rt, name) == CUTS[name][1]


# --- aliasing: in-place ops write tangents in place ----------------------------------------
def _aliasing(t):
    F = t.autograd.forward_ad
    out = {}
    with F.dual_level():
        tg = t.tensor([1.0, -1.0])
        x = F.make_dual(t.tensor([1.0, 2.0]), tg)
        v = x[0]
        x.mul_(2)
        out["caller_tangent"] = tg.tolist()  # NOTE: torch writes into the given tangent
        out["view_sees_it"] = F.unpack_dual(v).tangent.item()
        y = F.make_dual(t.ones(2, 2), t.ones(2, 2))
        out["view_tangent_base"] = F.unpack_dual(y.t()).tangent._base is F.unpack_dual(y).tangent
        out["expand_stride"] = F.unpack_dual(y[None].expand(3, 2, 2)).tangent.stride()
        c = t.zeros(2, 2)
        c[0] = x
        out["setitem_zero_fill"] = F.unpack_dual(c).tangent.tolist()
        out["repr"] = repr(x * 1) + repr(F.make_dual(t.tensor(2.0), t.tensor(1.0)))
        out["repr64"] = repr(F.make_dual(t.ones(2, dtype=t.float64), t.ones(2, dtype=t.float64)))
    return out


def test_aliasing_and_repr():
    got = _aliasing(torch)
    assert got["caller_tangent"] == [2.0, -2.0]
    assert got["view_sees_it"] == 2.0
    assert got["view_tangent_base"] is True
    assert got["expand_stride"] == (0, 2, 1)
    assert got["setitem_zero_fill"] == [[2.0, -2.0], [0.0, 0.0]]
    assert got["repr"] == "tensor([2., 4.], tangent=tensor([ 2., -2.]))tensor(2., tangent=1.0)"


def test_aliasing_and_repr_match_torch(rt):
    assert _aliasing(torch) == _aliasing(rt)


def test_reverse_mode_still_works_through_a_dual_tensor(rt):
    def run(t):
        F = t.autograd.forward_ad
        p = t.tensor([1.0, 2.0], requires_grad=True)
        with F.dual_level():
            y = (F.make_dual(p, t.tensor([1.0, -1.0])) ** 2).sum()
            tangent = F.unpack_dual(y).tangent.item()
        y.backward()
        return tangent, p.grad.tolist(), y.grad_fn.name()

    assert run(torch) == run(rt) == (-2.0, [2.0, 4.0], "SumBackward0")
