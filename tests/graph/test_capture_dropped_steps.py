"""A training loop's dead steps are freed while recording, and the graph stays the same.

The recorder keeps only what live values need (see engine/trace.py); a recorder started
inside another one keeps everything. Each program here is captured both ways: the models
must be equal, node for node and edge for edge.
"""

from __future__ import annotations

import gc
import json
import textwrap

import pytest

from detachviz.engine import trace
from detachviz.graph.capture import Options, capture
from detachviz.runner import RunResult, compat_modules, pick_roots, prebound, tensor_names

PROGRAMS = {
    "sgd with a no_grad accuracy and a detached target": """
        w = torch.ones(3, 2, requires_grad=True)
        b = torch.zeros(2, requires_grad=True)
        x = torch.linspace(-1, 1, 12).reshape(4, 3)
        opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)
        for step in range(30):
            out = (x @ w + b).tanh()
            target = out.detach() * 0.5
            loss = ((out - target) ** 2).mean()
            with torch.no_grad():
                acc = (out.argmax(1) == 0).float().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """,
    "manual update through .data, the last step writing before backward": """
        a = torch.ones(4, requires_grad=True)
        x = torch.arange(4.0)
        for step in range(20):
            h = (a * x).sigmoid()
            loss = h.sum()
            if step == 19:
                h.data.mul_(2)
            loss.backward()
            a.data -= 0.01 * a.grad.data
            a.grad = None
    """,
    "tbptt: the hidden state detached every chunk": """
        w = torch.full((2, 2), 0.5, requires_grad=True)
        h = torch.zeros(2)
        for chunk in range(15):
            h = h.detach()
            for t in range(3):
                h = torch.tanh(w @ h + 1.0)
            loss = h.sum()
            loss.backward()
            with torch.no_grad():
                w -= 0.01 * w.grad
            w.grad.zero_()
    """,
    "two writes a step into a tensor a live node saved, never differentiated": """
        w = torch.ones(3, requires_grad=True)
        s = torch.arange(3.0)
        for step in range(40):
            h = (w * s).tanh() + w.detach()  # mul saves s; the writes below come after it
            with torch.no_grad():
                s.mul_(0.5)  # superseded at once, but drawn: the live mul saved s before it
                s.add_(1.0)
            loss = h.sum()
    """,
    "a buffer updated from a detached parameter every step, read by the last step": """
        w = torch.ones(3, requires_grad=True)
        s = torch.zeros(3)
        for step in range(40):
            with torch.no_grad():
                s.mul_(0.5)
                s.add_(w.detach() * 0.1)  # a cut behind every write: the history is drawn
            loss = (w + s).sum()  # add saves nothing: no live node keeps the writes
    """,
    "momentum sgd for many steps, then a write into a saved tensor": """
        w = torch.ones(3, requires_grad=True)
        b = torch.zeros(3, requires_grad=True)
        scale = torch.arange(3.0)
        opt = torch.optim.SGD([w, b], lr=0.01, momentum=0.9)
        for step in range(120):
            h = (w * scale + b).tanh()
            loss = ((h - h.detach() * 0.5) ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                scale.mul_(0.999)
        extra = (w * scale).sum()
        with torch.no_grad():
            scale.add_(1.0)
    """,
}


def _graph(code: str, keep_everything: bool, show_saved: bool) -> str:
    namespace: dict = {"__name__": "__main__"}
    with compat_modules(), trace.recording("<prog>") as rec:
        rec.strong = keep_everything  # before the first op: one mode for the whole run
        namespace.update(prebound())
        exec(compile(textwrap.dedent(code), "<prog>", "exec"), namespace)
        gc.collect()  # cycles among dropped values go too
        result = RunResult(path=None, namespace=namespace, recorder=rec)  # type: ignore[arg-type]
        roots = pick_roots(result)
        graph = capture(roots, rec, tensor_names(namespace), Options(show_saved=show_saved))
        return graph.to_json()


@pytest.mark.parametrize("show_saved", [False, True])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_freeing_dead_steps_draws_the_same_graph(name, show_saved):
    code = PROGRAMS[name]
    freed = _graph(code, False, show_saved)
    assert freed == _graph(code, True, show_saved)
    edges = json.loads(freed)["edges"]
    assert any(e["cut"] for e in edges)  # every program draws a cut that crosses steps


def test_a_loop_keeps_only_its_last_step_recorded():
    counts = {}
    for keep in (False, True):
        namespace: dict = {"__name__": "__main__"}
        with compat_modules(), trace.recording("<prog>") as rec:
            rec.strong = keep
            namespace.update(prebound())
            code = PROGRAMS["sgd with a no_grad accuracy and a detached target"]
            exec(compile(textwrap.dedent(code), "<prog>", "exec"), namespace)
            gc.collect()
            counts[keep] = sum(1 for r in rec.records if r.op == "tanh")
    assert counts == {False: 1, True: 30}


def test_a_loop_keeps_a_bounded_history_of_writes():
    """An optimizer's updates write into the same live tensors every step; the writes no
    drawing can show are let go, so what stays recorded does not grow with the steps, and
    the write a drawing shows (into a tensor a live node saved) is still drawn."""
    code = PROGRAMS["momentum sgd for many steps, then a write into a saved tensor"]
    kept, graphs = {}, {}
    steps = 640  # 4,477 writes: one pass at 4,096
    for keep in (False, True):
        namespace: dict = {"__name__": "__main__"}
        with compat_modules(), trace.recording("<prog>") as rec:
            rec.strong = keep
            namespace.update(prebound())
            program = textwrap.dedent(code).replace("range(120)", f"range({steps})")
            exec(compile(program, "<prog>", "exec"), namespace)
            gc.collect()
            kept[keep] = sum(1 for r in rec.records if r.inplace)
            result = RunResult(path=None, namespace=namespace, recorder=rec)  # type: ignore[arg-type]
            roots = pick_roots(result, ["extra"])
            graphs[keep] = capture(roots, rec, tensor_names(namespace)).to_json()
    assert graphs[False] == graphs[True]
    edges = json.loads(graphs[False])["edges"]
    assert [e["write"] for e in edges if e["write"]] == ["inplace"]  # scale.add_ after extra
    # per step and parameter buf.mul_, buf.add_, p.add_ (the first step clones buf), then
    # scale.mul_; and the last scale.add_
    assert kept[True] == steps * (2 * 3 + 1) - 2 * 2 + 1
    # each write is let go when the next one into its target supersedes it
    # (engine/writes.py), the rest in a pass at 4,096
    assert kept[False] < 1024, kept


@pytest.mark.parametrize("steps", [10, 240])
def test_a_superseded_write_is_let_go_at_once(steps: int) -> None:
    """Between the passes over all kept writes, a loop keeps the latest write per target and
    the ones a drawing can show: what stays does not grow with the steps (240 steps make
    1,680 writes, under the 4,096 of a pass)."""
    code = PROGRAMS["momentum sgd for many steps, then a write into a saved tensor"]
    namespace: dict = {"__name__": "__main__"}
    with compat_modules(), trace.recording("<prog>") as rec:
        namespace.update(prebound())
        program = textwrap.dedent(code).replace("range(120)", f"range({steps})")
        exec(compile(program, "<prog>", "exec"), namespace)
        kept = [(r.op, r.line) for r in rec.records if r.inplace]
    # w.add_ and b.add_ (line 11, opt.step), their momentum buffers' add_; the last
    # scale.mul_ (line 13: the last step's node saved scale before it) and scale.add_
    assert kept == [("add_", 11)] * 4 + [("mul_", 13), ("add_", 16)]


def test_a_dropped_step_is_freed_without_the_cyclic_collector():
    """A step's graph goes when the script drops it, by reference counting alone, as under
    `run`: nothing the recorder adds (the backward record that its loss anchors, the loss's
    snapshot) closes a cycle that would leave the step to the collector."""
    code = """
        import weakref
        w = torch.ones(3, requires_grad=True)
        x = torch.arange(3.0)
        nodes = []
        for step in range(5):
            h = (w * x + 1.0).tanh()
            loss = (h**2).sum()  # pow saves h: the step's records hold its node through it
            nodes.append(weakref.ref(h.grad_fn))
            loss.backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
            w.grad = None
    """
    namespace: dict = {"__name__": "__main__"}
    gc.collect()
    gc.disable()
    try:
        with compat_modules(), trace.recording("<prog>"):
            namespace.update(prebound())
            exec(compile(textwrap.dedent(code), "<prog>", "exec"), namespace)
            alive = [ref() is not None for ref in namespace["nodes"]]
    finally:
        gc.enable()
    assert alive == [False, False, False, False, True]  # only the last step is still named


@pytest.mark.parametrize(("history", "kept"), [(10, ["sub_"]), (100, ["sub_", "sub_"])])
def test_a_write_with_a_long_history_behind_it_is_left_to_the_pass(history, kept) -> None:
    """Whether a cut lies behind a superseded write is looked for over a bounded history
    (engine/writes.py's CUT_SEARCH_BUDGET, 64 records); behind a longer one the write stays
    until the pass over all kept writes decides."""
    code = f"""
        p = torch.ones(3, requires_grad=True)
        v = torch.zeros(3)
        for _ in range({history}):
            v = v + 1.0  # no grad and no cut: a history of plain records
        with torch.no_grad():
            p.sub_(v)
            p.sub_(v)
    """
    namespace: dict = {"__name__": "__main__"}
    with compat_modules(), trace.recording("<prog>") as rec:
        namespace.update(prebound())
        exec(compile(textwrap.dedent(code), "<prog>", "exec"), namespace)
        assert [r.op for r in rec.records if r.inplace] == kept


def test_writes_kept_for_a_saver_that_died_go_in_the_pass():
    """A write superseded while a node that saved its target before it lived is kept (the
    program above keeps both writes of every step); once those nodes are gone, the pass over
    all kept writes (at 4,096 of them) lets the writes go, and the drawing stays the same."""
    code = PROGRAMS["two writes a step into a tensor a live node saved, never differentiated"]
    kept, graphs = {}, {}
    for steps, keep in ((40, False), (2100, False), (2100, True)):
        program = textwrap.dedent(code).replace("range(40)", f"range({steps})")
        namespace: dict = {"__name__": "__main__"}
        with compat_modules(), trace.recording("<prog>") as rec:
            rec.strong = keep
            namespace.update(prebound())
            exec(compile(program, "<prog>", "exec"), namespace)
            kept[steps, keep] = sum(1 for r in rec.records if r.inplace)
            if steps == 2100:
                result = RunResult(path=None, namespace=namespace, recorder=rec)  # type: ignore[arg-type]
                graphs[keep] = capture(pick_roots(result), rec, tensor_names(namespace)).to_json()
    assert kept[40, False] == 2 * 40
    assert kept[2100, True] == 2 * 2100
    assert (
        kept[2100, False] < 2 * (2100 - 2048) + 10
    )  # the pass at 4,096 writes let go of 4,000-odd
    assert graphs[False] == graphs[True]
