"""grad_fn names, next_functions and saved attributes, compared with real torch."""

from __future__ import annotations

import warnings

import pytest

import detachviz.torch as torch


def describe(t):
    """The graph under t.grad_fn as a list of (depth-first path, name, output_nr) rows."""
    rows = [("output_nr", t.output_nr)]
    if t.grad_fn is None:
        return rows
    stack = [((), t.grad_fn, 0)]
    seen = 0
    while stack:
        path, fn, nr = stack.pop()
        seen += 1
        if fn is None:
            rows.append((path, None, nr))
            continue
        rows.append((path, fn.name(), nr))
        for i, (nxt, k) in reversed(list(enumerate(fn.next_functions))):
            stack.append((path + (i,), nxt, k))
    return rows


EXPRS = {
    "x*2": lambda t, x, c, M, N: x * 2,
    "2*x": lambda t, x, c, M, N: 2 * x,
    "x*c": lambda t, x, c, M, N: x * c,
    "c*x": lambda t, x, c, M, N: c * x,
    "x*x": lambda t, x, c, M, N: x * x,
    "x+2": lambda t, x, c, M, N: x + 2,
    "2+x": lambda t, x, c, M, N: 2 + x,
    "x-c": lambda t, x, c, M, N: x - c,
    "2-x": lambda t, x, c, M, N: 2 - x,
    "x/2": lambda t, x, c, M, N: x / 2,
    "2/x": lambda t, x, c, M, N: 2 / x,
    "x**2": lambda t, x, c, M, N: x**2,
    "2**x": lambda t, x, c, M, N: 2**x,
    "x**c": lambda t, x, c, M, N: x**c,
    "x**x": lambda t, x, c, M, N: x**x,
    "neg": lambda t, x, c, M, N: -x,
    "abs": lambda t, x, c, M, N: x.abs(),
    "exp": lambda t, x, c, M, N: x.exp(),
    "log": lambda t, x, c, M, N: x.log(),
    "sqrt": lambda t, x, c, M, N: x.sqrt(),
    "sin": lambda t, x, c, M, N: x.sin(),
    "cos": lambda t, x, c, M, N: x.cos(),
    "tanh": lambda t, x, c, M, N: x.tanh(),
    "sigmoid": lambda t, x, c, M, N: x.sigmoid(),
    "relu": lambda t, x, c, M, N: x.relu(),
    "torch.relu": lambda t, x, c, M, N: t.relu(x),
    "clamp": lambda t, x, c, M, N: x.clamp(0, 1),
    "clamp_min": lambda t, x, c, M, N: x.clamp(min=0),
    "sum": lambda t, x, c, M, N: x.sum(),
    "sum0": lambda t, x, c, M, N: M.sum(0),
    "sum_keep": lambda t, x, c, M, N: M.sum(-1, keepdim=True),
    "mean": lambda t, x, c, M, N: x.mean(),
    "mean1": lambda t, x, c, M, N: M.mean(1),
    "mm": lambda t, x, c, M, N: M @ N,
    "mm_method": lambda t, x, c, M, N: M.mm(N),
    "mv": lambda t, x, c, M, N: M @ x,
    "addmm": lambda t, x, c, M, N: t.addmm(x[:2].unsqueeze(1), M, N, beta=2, alpha=3),
    "addmm_const": lambda t, x, c, M, N: t.addmm(t.ones(4), t.ones(2, 3), N.t().t()),
    "split": lambda t, x, c, M, N: M.split(1)[1],
    "split_sizes": lambda t, x, c, M, N: x.split([1, 2])[1],
    "chunk": lambda t, x, c, M, N: x.chunk(2)[0],
    "unbind": lambda t, x, c, M, N: M.unbind(1)[2],
    "narrow": lambda t, x, c, M, N: M.narrow(1, 1, 2),
    "dot": lambda t, x, c, M, N: x @ x,
    "vm": lambda t, x, c, M, N: x @ M.t(),
    "t": lambda t, x, c, M, N: M.t(),
    "T": lambda t, x, c, M, N: M.T,
    "mT": lambda t, x, c, M, N: M.mT,
    "view": lambda t, x, c, M, N: M.view(6),
    "reshape": lambda t, x, c, M, N: M.reshape(6),
    "reshape_copy": lambda t, x, c, M, N: M.t().reshape(6),
    "transpose": lambda t, x, c, M, N: M.transpose(0, 1),
    "permute": lambda t, x, c, M, N: M.permute(1, 0),
    "expand": lambda t, x, c, M, N: x.expand(2, 3),
    "unsqueeze": lambda t, x, c, M, N: x.unsqueeze(0),
    "squeeze_dim": lambda t, x, c, M, N: M.unsqueeze(0).squeeze(0),
    "squeeze_all": lambda t, x, c, M, N: M.unsqueeze(0).squeeze(),
    "flatten": lambda t, x, c, M, N: M.flatten(),
    "select": lambda t, x, c, M, N: M[0],
    "select_neg": lambda t, x, c, M, N: M[-1],
    "slice": lambda t, x, c, M, N: M[:, 1:3],
    "slice1": lambda t, x, c, M, N: x[1:3],
    "full_slice": lambda t, x, c, M, N: x[:],
    "ellipsis": lambda t, x, c, M, N: x[...],
    "none": lambda t, x, c, M, N: x[None],
    "mixed_index": lambda t, x, c, M, N: M[0, 1:3],
    "ellipsis_index": lambda t, x, c, M, N: M[..., 1],
    "chained_select": lambda t, x, c, M, N: M[0][1],
    "clone": lambda t, x, c, M, N: x.clone(),
    "copy_": lambda t, x, c, M, N: t.empty_like(x).copy_(x),
    "double": lambda t, x, c, M, N: x.double(),
    "to64": lambda t, x, c, M, N: x.to(t.float64),
    "broadcast": lambda t, x, c, M, N: x * 2.0 * t.ones(1, requires_grad=True),
    "bmm": lambda t, x, c, M, N: t.ones(5, 2, 3, requires_grad=True) @ t.ones(5, 3, 4),
    "inplace_view": lambda t, x, c, M, N: _inplace_view(x),
    "sibling_view": lambda t, x, c, M, N: _sibling_view(x),
    "view_after_base_inplace": lambda t, x, c, M, N: _view_after_base_inplace(x),
    "setitem": lambda t, x, c, M, N: _setitem(x),
    "setitem_into_const": lambda t, x, c, M, N: _setitem_const(t, x),
    "inplace_const": lambda t, x, c, M, N: t.zeros(3).mul_(x),
    "zero_": lambda t, x, c, M, N: (x * 1).zero_(),
    "fill_": lambda t, x, c, M, N: (x * 1).fill_(2),
    "pow_": lambda t, x, c, M, N: (x * 1).pow_(2),
    "iadd": lambda t, x, c, M, N: _iadd(x, c),
}


def _inplace_view(x):
    b = x * 2
    v = b[1:3]
    v.mul_(3)
    return v


def _sibling_view(x):
    b = x * 2
    v = b[1:3]
    w = b[0:2]
    v.mul_(3)
    return w


def _view_after_base_inplace(x):
    b = x * 2
    v = b[1:]
    b.mul_(5)
    return v * 1


def _setitem(x):
    b = x * 2
    b[1] = 5
    return b


def _setitem_const(t, x):
    c = t.zeros(3)
    c[1:3] = x[1:3]
    return c


def _iadd(x, c):
    y = c * 1
    y += x
    return y


def _make(t, name):
    x = t.ones(3, requires_grad=True)
    c = t.ones(3)
    M = t.ones(2, 3, requires_grad=True)
    N = t.ones(3, 4, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EXPRS[name](t, x, c, M, N)


@pytest.mark.parametrize("name", list(EXPRS))
def test_graph_matches_torch(rt, name):
    ours, theirs = _make(torch, name), _make(rt, name)
    assert describe(ours) == describe(theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def _saved_attrs(fn):
    out = {}
    for k in dir(fn):
        if not k.startswith("_saved_"):
            continue
        v = getattr(fn, k)
        if hasattr(v, "grad_fn"):
            out[k] = ("tensor", tuple(v.shape))
        elif isinstance(v, tuple):
            out[k] = tuple(v)
        else:
            out[k] = v
    return out


SAVED = [
    "x*2",
    "c*x",
    "x*x",
    "x/2",
    "x**2",
    "x**c",
    "2**x",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "sigmoid",
    "relu",
    "clamp",
    "clamp_min",
    "abs",
    "sum",
    "sum0",
    "sum_keep",
    "mean",
    "mean1",
    "mm",
    "mv",
    "dot",
    "view",
    "transpose",
    "permute",
    "expand",
    "unsqueeze",
    "select",
    "select_neg",
    "slice",
    "x+2",
    "2-x",
]


@pytest.mark.parametrize("name", SAVED)
def test_saved_attributes_match_torch(rt, name):
    ours, theirs = _make(torch, name), _make(rt, name)
    assert _saved_attrs(ours.grad_fn) == _saved_attrs(theirs.grad_fn)


def test_accumulate_grad_is_cached_and_names():
    x = torch.ones(3, requires_grad=True)
    a1 = (x * 2).grad_fn.next_functions[0][0]
    a2 = (x * 3).grad_fn.next_functions[0][0]
    assert a1 is a2 and a1.variable is x
    assert a1.name() == "torch::autograd::AccumulateGrad"
    assert type(a1).__name__ == "AccumulateGrad"
    assert a1.metadata == {} and a1.next_functions == ()


def test_saved_variables_tuple():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    z = y * x
    (sv,) = y.grad_fn._saved_variables
    assert sv.name == "result" and sv.saved_version == 0
    assert sv.tensor.grad_fn is y.grad_fn and sv.tensor.data_ptr() == y.data_ptr()
    names = sorted((s.name, s.tensor is x or s.tensor is y) for s in z.grad_fn._saved_variables)
    assert names == [("other", True), ("self", True)]


def test_grad_fn_metadata_and_hooks():
    x = torch.ones(2, requires_grad=True)
    y = x * 3
    y.grad_fn.metadata["k"] = 1
    seen = []
    h = y.grad_fn.register_hook(lambda gin, gout: seen.append((len(gin), len(gout))))
    y.sum().backward()
    assert y.grad_fn.metadata == {"k": 1} and seen == [(2, 1)]
    h.remove()
