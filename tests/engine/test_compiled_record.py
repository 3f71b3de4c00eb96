"""The compiled recorder (engine/_record.c) against the Python `Recorder.record` it stands in
for: the same programs, recorded each way, give the same records, slot for slot."""

from __future__ import annotations

import gc
import warnings
import weakref

import pytest

import detachviz.torch as torch
from detachviz.engine import kernels, trace
from detachviz.engine.node import MULTI, Node
from detachviz.engine.tensor import Tensor

COMPILED = trace.Recorder.__dict__["record"]
pytestmark = pytest.mark.skipif(
    COMPILED is trace.python_record, reason="engine/_record.c not built (or turned off)"
)

SCRIPT = "/virtual/program.py"

# Programs of the kinds a script is made of: chains, several inputs, grad mode off, in-place
# writes, cuts, views, several outputs, leaves made by factories, a loop whose steps die,
# and a recorder started inside another.
PROGRAMS = {
    "chain": """
x = torch.ones(3, requires_grad=True)
w = torch.full((3,), 1.5)
y = x
for _ in range(5):
    y = y * w
y = (y.exp() + x).sum()
y.backward()
""",
    "no_grad": """
x = torch.ones(2, requires_grad=True)
c = torch.zeros(2)
with torch.no_grad():
    a = x * 2
    b = c + 1
z = (a + b + x).sum()
z.backward()
""",
    "inplace_and_cuts": """
x = torch.ones(4, requires_grad=True)
y = x * 3
y.add_(1)
d = y.detach()
d.mul_(2)
e = x.data * 2
t = torch.tensor(y)
v = y[1:3]
s = (v * v).sum() + e.sum() + t.sum()
s.backward()
""",
    "outputs": """
x = torch.randn(2, 5, requires_grad=True)
a, b = x.chunk(2, dim=1)
m, i = x.max(dim=1)
q = (a.sum() + b.sum() + m.sum())
q.backward()
""",
    "loop": """
w = torch.ones(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for step in range(4):
    opt.zero_grad()
    loss = ((w * 2 - 1) ** 2).sum()
    loss.backward()
    opt.step()
""",
    "nested": """
x = torch.ones(2, requires_grad=True)
with trace.recording(SCRIPT) as inner:
    y = (x * 4).sin()
z = (y * x).sum()
""",
}


def _key(r: trace.Ref | None) -> object:
    return None if r is None else (type(r).__name__, getattr(r, "index", None))


def _record_view(r: trace.Record) -> tuple[object, ...]:
    """Every slot a record's reader sees, with references to other records by index."""
    saved = tuple((sv.name, sv.tensor is not None) for sv in r.saved)
    return (
        r.index,
        r.op,
        r.cut,
        r.inplace,
        r.grad_enabled,
        r.line,
        # a record that is not its output's snapshot sets none of a snapshot's slots
        *((r.requires_grad, r.shape, type(r.grad_fn).__name__) if r.outputs == (r,) else ()),
        tuple((_key(i), _key(i.producer), i.requires_grad, i.shape) for i in r.inputs),
        tuple((_key(o), _key(o.producer), o.requires_grad, o.shape) for o in r.outputs),
        saved,
        len(getattr(r, "_pins", ())),
    )


def _run(name: str, record: object) -> list[tuple[object, ...]]:
    trace.Recorder.record = record  # type: ignore[method-assign]
    try:
        torch.manual_seed(0)
        scope = {"torch": torch, "trace": trace, "SCRIPT": SCRIPT}
        code = compile(PROGRAMS[name], SCRIPT, "exec")
        with trace.recording(SCRIPT) as rec, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, scope)
            views = [_record_view(r) for r in rec.records]
            inner = scope.get("inner")
            if inner is not None:
                views += [("inner", *_record_view(r)) for r in inner.records]
        return views
    finally:
        trace.Recorder.record = COMPILED  # type: ignore[method-assign]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_records_as_python(name):
    compiled, python = _run(name, COMPILED), _run(name, trace.python_record)
    assert compiled == python
    assert len(compiled) >= 4


def _count_fallbacks(program: str) -> tuple[int, int]:
    """(ops recorded, ops the compiled record handed to Python) for `program`."""
    calls = []

    def fallback(self, *args, **kwargs):
        calls.append(args[0])
        return trace.python_record(self, *args, **kwargs)

    module = kernels.compiled("_record")
    counting = module.setup(
        trace.Recorder, trace.Record, trace.Ref, Tensor, Node, trace.state, MULTI, fallback
    )
    trace.Recorder.record = counting
    try:
        scope = {"torch": torch}
        with trace.recording(SCRIPT) as rec:
            exec(compile(program, SCRIPT, "exec"), scope)
            total = rec._count
    finally:
        module.setup(
            trace.Recorder,
            trace.Record,
            trace.Ref,
            Tensor,
            Node,
            trace.state,
            MULTI,
            trace.python_record,
        )
        trace.Recorder.record = COMPILED
    return total, len(calls)


def test_common_case_never_reaches_python():
    # the first op meets `w` unseen (Python snapshots it); every later op is compiled
    total, fallbacks = _count_fallbacks(
        "x = torch.ones(3, requires_grad=True)\nw = torch.ones(3)\ny = x\n"
        "for _ in range(50):\n    y = y * w\n"
    )
    assert (total, fallbacks) == (50, 1)  # the factories make no records


def test_cuts_and_writes_go_to_python():
    # Python records: the op on an unseen leaf, the cut and the write; the compiled record
    # the op on y, and the op on the written z (its snapshot is the write's, unchanged since)
    total, fallbacks = _count_fallbacks(
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y * 2\nd = z.detach()\n"
        "z.add_(1)\nu = z * 3\n"
    )
    assert (total, fallbacks) == (5, 3)


def test_records_and_tensors_are_freed_by_reference_count():
    # a loop's dropped steps go at once, without the cyclic collector: nothing the compiled
    # record makes closes a cycle (its recorder included)
    gc.collect()
    gc.disable()
    try:
        with trace.recording(SCRIPT) as rec:
            w = torch.ones(3, requires_grad=True)
            y = w * 2
            alive = weakref.ref(y)
            kept = weakref.ref(y._trace)
            del y
            assert alive() is None and kept() is None
        del rec

        def steps() -> None:
            with trace.recording(SCRIPT):
                y = w
                for _ in range(200):
                    y = y * 1.5
                del y

        steps()  # first-use caches (the line table, interned names) are made once
        before = len(gc.get_objects())
        for _ in range(3):
            steps()
        assert len(gc.get_objects()) - before < 10  # 600 records, none of them left
    finally:
        gc.enable()
