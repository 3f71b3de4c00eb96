"""The unrolled fast paths are copies of a general path; these tests keep each pair in step on
random inputs: `attach1` / `attach2` vs `attach`, the generated savers vs the `Saved` rows read
directly, `fast_binary` and `unary` vs `apply`, `fast_binary`'s inlined tensor slots vs
`init_tensor` (what `unary` and `apply` call), and backward's `_loop_np` vs the general loop
of `run_backward`."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch
from detachviz.engine import autograd, function, state, trace
from detachviz.engine.node import RESULT, Node
from detachviz.engine.ops import arith, linalg, unary
from detachviz.engine.tensor import Tensor, init_tensor

SEEDS = range(12)


def _tensor(rng: np.random.Generator, shape: tuple[int, ...], rg: bool, kind: str) -> Tensor:
    """A float tensor of `kind`: a leaf, a non-leaf (history), a view, or a 0-dim tensor."""
    if kind == "scalar":
        shape = ()
    t = torch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=rg)
    if kind == "nonleaf" and rg:
        t = t * 1.5
    elif kind == "view":
        t = (t * 1.0 if rg else t).unsqueeze(0)[0]
    return t


KINDS = ("leaf", "nonleaf", "view", "scalar")


def _node_fields(n: Node | None) -> tuple[object, ...]:
    if n is None:
        return (None,)
    edges = tuple(
        (type(e[0]).__name__ if e[0] is not None else None, e[1]) for e in n.next_functions
    )
    saved = tuple(_saved_id(s) for s in (n._saved or ()))
    return (type(n), edges, saved, n._versions, n._attrs, n._shape, n._npd)


def _saved_id(s: object) -> object:
    # a saved input is the input object itself; a saved result is a SavedOutput over its data
    if s is None or isinstance(s, (int, float, bool)):
        return s
    data = s._data  # type: ignore[attr-defined]
    return (type(s).__name__, data.__array_interface__["data"][0], data.shape)


def _fresh_out(data: np.ndarray) -> Tensor:
    out = object.__new__(Tensor)
    init_tensor(out, data, torch.float32)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_attach1_and_attach2_match_attach(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for cls in (arith.MUL, arith.DIV, arith.ADD, arith.POW1, linalg.DOT):
        for kx in KINDS:
            for ky in KINDS:
                for rx, ry in ((True, True), (True, False), (False, True)):
                    x = _tensor(rng, (3,), rx, kx)
                    y = _tensor(rng, (3,), ry, ky)
                    data = (x._data * y._data).astype(np.float32)
                    attrs = (1,) if cls is arith.ADD else ()
                    a, b = _fresh_out(data), _fresh_out(data)
                    function.attach(cls, a, (x, y), attrs)
                    function.attach2(cls, b, x, y, y._requires_grad, attrs)
                    assert _node_fields(a._grad_fn) == _node_fields(b._grad_fn)
                    assert a._grad_fn._seq < b._grad_fn._seq
    for cls in (unary.EXP, unary.TANH, unary.CLAMP, arith.POW0):
        for kx in KINDS:
            x = _tensor(rng, (4,), True, kx)
            data = np.exp(x._data)
            attrs = (None, 1.0) if cls is unary.CLAMP else ((2,) if cls is arith.POW0 else ())
            a, b = _fresh_out(data), _fresh_out(data)
            function.attach(cls, a, (x,), attrs)
            function.attach1(cls, b, x, attrs)
            assert _node_fields(a._grad_fn) == _node_fields(b._grad_fn)


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_savers_save_what_the_rows_say(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for cls in (arith.MUL, arith.DIV, arith.POW1, linalg.MM, linalg.ADDMM):
        n_in = len(cls._vjps)
        for mask in range(1, 1 << n_in):
            shape = (2, 2)
            ins = tuple(_tensor(rng, shape, bool(mask >> i & 1), "leaf") for i in range(n_in))
            out = _fresh_out(rng.standard_normal(shape).astype(np.float32))
            node = function.attach(cls, out, ins, (1, 1) + ((),) * 4 if cls is linalg.ADDMM else ())
            expected = []
            for src, need in zip(cls._save_src, cls._save_need):
                if not need & mask:
                    expected.append(None)
                elif src == RESULT:
                    expected.append(("SavedOutput", out._data.__array_interface__["data"][0]))
                else:
                    expected.append(ins[src])
            got = [
                None
                if s is None
                else (
                    ("SavedOutput", s._data.__array_interface__["data"][0])
                    if s is not ins[0] and type(s).__name__ == "SavedOutput"
                    else s
                )
                for s in node._saved
            ]
            assert got == expected
            assert node._versions == tuple(0 for _ in expected)


def _slots(t: Tensor) -> dict[str, object]:
    out = {}
    for name in Tensor.__slots__:
        if name in ("__weakref__", "_trace"):  # _trace: the recorder's bookkeeping
            continue
        v = getattr(t, name, "<unset>")
        if isinstance(v, np.ndarray):
            v = (v.shape, v.dtype.str, v.tolist())
        elif isinstance(v, Node):
            v = _node_fields(v)
        elif v is not None and name in ("_storage", "_vc", "_x"):
            v = type(v).__name__
        out[name] = v
    return out


OPS = {
    "mul": (arith.mul_fast, np.multiply, arith.MUL, ()),
    "add": (arith.add_fast, np.add, arith.ADD, (1,)),
    "sub": (arith.sub_fast, np.subtract, arith.SUB, (1,)),
    "div": (arith.div_fast, np.true_divide, arith.DIV, ()),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_fast_binary_matches_the_general_path(seed: int, op: str) -> None:
    rng = np.random.default_rng(seed)
    fast, fn, cls, attrs = OPS[op]
    for kx in KINDS:
        for other in ("tensor", "float", "int", "double", "broadcast"):
            for rx, ry in ((True, True), (True, False), (False, False)):
                x = _tensor(rng, (2, 3), rx, kx)
                if other == "tensor":
                    y: object = _tensor(rng, (2, 3), ry, "leaf")
                elif other == "broadcast":
                    y = _tensor(rng, (3,), ry, "leaf")
                elif other == "double":
                    y = torch.tensor(rng.standard_normal(3), dtype=torch.float64)
                elif other == "float":
                    y = float(rng.standard_normal())
                else:
                    y = int(rng.integers(1, 5))
                with trace.recording() as rec_fast:
                    a = fast(x, y)
                with trace.recording() as rec_general:
                    b = function.binary(cls, fn, op, x, y, attrs, floating=(op == "div"))
                assert _slots(a) == _slots(b)
                assert [r.op for r in rec_fast.records] == [r.op for r in rec_general.records]


@pytest.mark.parametrize("seed", SEEDS)
def test_unary_and_fast_binary_make_the_tensor_init_tensor_makes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for inference in (False, True):
        state.inference = inference
        try:
            x = _tensor(rng, (5,), False, "leaf")
            for made in (
                function.unary(unary.EXP, np.exp, "exp", x),
                arith.mul_fast(x, x),
                arith.add_fast(x, 2.0),
                function.apply(unary.EXP, "exp", (x,), np.exp(x._data)),
                function.apply(linalg.DOT, "matmul", (x, x), np.dot(x._data, x._data)),
            ):
                ref = _fresh_out(made._data)
                assert _slots(made).keys() == _slots(ref).keys()
                assert made.is_inference() is inference
                assert {
                    k: v for k, v in _slots(made).items() if k not in ("_data", "_storage")
                } == {k: v for k, v in _slots(ref).items() if k not in ("_data", "_storage")}
                general = function.apply(unary.EXP, "exp", (x,), np.exp(x._data))
                assert _slots(function.unary(unary.EXP, np.exp, "exp", x)) == _slots(general)
        finally:
            state.inference = False


def _random_graph(seed: int) -> tuple[Tensor, list[Tensor], list[Tensor], list[str]]:
    """A random chain of ops over a few leaves, some intermediates retaining grad and hooked;
    returns (scalar root, leaves, retained intermediates, hook log)."""
    rng = np.random.default_rng(seed)
    leaves = [
        torch.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
        for _ in range(3)
    ]
    pool: list[Tensor] = list(leaves)
    retained: list[Tensor] = []
    log: list[str] = []
    for step in range(14):
        a = pool[int(rng.integers(len(pool)))]
        b = pool[int(rng.integers(len(pool)))]
        k = int(rng.integers(12))
        if k == 0:
            y = a * b
        elif k == 1:
            y = a + b * 0.5
        elif k == 2:
            y = a - b
        elif k == 3:
            y = a / (b * b + 1.0)
        elif k == 4:
            y = a.tanh()
        elif k == 5:
            y = a.sigmoid() * 2.0
        elif k == 6:
            y = a.relu() + a.exp() * 0.1
        elif k == 7:
            y = a.view(12).view(3, 4)
        elif k == 8:
            y = a.unsqueeze(0).expand(2, 3, 4).mean(0)
        elif k == 9:
            y = (a @ b.t()) @ b * 0.1
        elif k == 10:
            y = a[1:].sum(0, keepdim=True) + a
        else:
            y = a.clone()
            y.mul_(b)
        if rng.random() < 0.3:
            y.retain_grad()
            retained.append(y)
        if rng.random() < 0.3:
            tag = f"hook{step}"
            y.register_hook(lambda g, tag=tag: log.append(tag) or g * 1.5)
        pool.append(y)
    root = pool[-1].sum() + pool[-2].pow(2).mean()
    return root, leaves, retained, log


@pytest.mark.parametrize("seed", range(40))
def test_loop_np_matches_the_general_backward_loop(seed: int) -> None:
    results = []
    for fast in (True, False):
        root, leaves, retained, log = _random_graph(seed)
        assert root.grad_fn is not None
        roots = [(root.grad_fn, np.ones((), dtype=np.float32))]
        autograd.run_backward(roots, retain_graph=False, create_graph=False, fast=fast)
        results.append(
            (
                [None if t.grad is None else t.grad.tolist() for t in leaves],
                [None if t.grad is None else t.grad.tolist() for t in retained],
                list(log),
            )
        )
    assert results[0] == results[1]


@pytest.mark.parametrize("seed", range(10))
def test_backward_grad_and_create_graph_agree(seed: int) -> None:
    def as_lists(gs: list[Tensor | None]) -> list[object]:
        return [None if g is None else g.tolist() for g in gs]

    root, leaves, _, _ = _random_graph(seed)
    root.backward()
    plain = as_lists([t.grad for t in leaves])
    root, leaves, _, _ = _random_graph(seed)
    assert as_lists(list(torch.autograd.grad(root, leaves, allow_unused=True))) == plain
    root, leaves, _, _ = _random_graph(seed)
    root.backward(create_graph=True)
    built = as_lists([t.grad for t in leaves])
    assert [g is None for g in built] == [g is None for g in plain]
    for b, p in zip(built, plain):
        if p is not None:
            np.testing.assert_allclose(np.array(b), np.array(p), rtol=1e-5, atol=1e-6)
