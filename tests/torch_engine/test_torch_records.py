"""What the torch engine records from real tensors: the numpy engine's op names, cuts and
in-place snapshots, version-counter sharing, saved tensors, and failures; and the same
through the Python API and the notebook magic."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from detachviz import api  # noqa: E402
from detachviz.engine import trace  # noqa: E402
from detachviz.torch_engine import recording  # noqa: E402


def _ops(rec):
    return [(r.op, r.cut, r.inplace) for r in rec.records]


def test_every_cut_mechanism_is_recorded_under_its_name():
    w = torch.ones(3, requires_grad=True)
    with recording() as rec, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.tensor(t)'s copy-construct warning
        a = w.detach()
        b = w.data
        c = torch.tensor(w)
        d = w.new_tensor(w)
        with torch.no_grad():
            e = w * 2
        y = (w * 3).tanh()
        y.detach_()
    assert _ops(rec) == [
        ("detach", "detach", False),
        ("data", "data", False),
        ("tensor", "copy", False),
        ("new_tensor", "copy", False),
        ("mul", "no_grad", False),
        ("mul", None, False),
        ("tanh", None, False),
        ("detach_", "detach_", True),
    ]
    assert [r.outputs[0].tensor for r in rec.records[:5]] == [a, b, c, d, e]
    assert all(r.inputs[0].tensor is w and r.cut_sources for r in rec.records[:5])
    # detach_ keeps the history it removed in its input snapshot
    last = rec.records[-1]
    assert last.inputs[0].grad_fn.name() == "TanhBackward0" and last.outputs[0].grad_fn is None
    assert last.inputs[0].producer is rec.records[-2]


def test_in_place_writes_snapshot_before_and_differentiations_record_their_roots():
    x = torch.ones(4, requires_grad=True)
    with recording() as rec:
        h = x * 2
        h[0] = 5.0
        h += 1
        loss = h.sum()
        loss.backward(retain_graph=True)
        (g,) = torch.autograd.grad(loss, x)
    assert _ops(rec) == [
        ("mul", None, False),
        ("setitem", None, True),
        ("add_", None, True),
        ("sum", None, False),
        ("backward", None, False),
        ("autograd.grad", None, False),
    ]
    setitem = rec.records[1]
    assert setitem.inputs[0].grad_fn.name() == "MulBackward0"
    assert type(setitem.outputs[0].grad_fn).__name__ == "CopySlices"
    assert rec.records[4].inputs[0].tensor is loss and rec.records[4].outputs == ()
    assert g.tolist() == [0.0, 2.0, 2.0, 2.0]  # h[0] was overwritten


def test_factories_and_shape_only_ops_are_not_values_flowing():
    w = torch.ones(3, requires_grad=True)
    with recording() as rec, torch.no_grad():
        torch.zeros(3)
        torch.zeros_like(w)
        w.new_zeros(2)
    assert rec.records == []


def test_version_counters_are_shared_as_torch_shares_them():
    x = torch.ones(4, requires_grad=True)
    with recording() as rec:
        d = x.detach()
        v = d[1:]
        data = x.data
    assert rec.shares_version_counter(x, d) and rec.shares_version_counter(x, v)
    assert not rec.shares_version_counter(x, data)
    # what torch itself does with them
    before = x._version
    v.mul_(2)
    assert x._version == before + 1
    data.mul_(2)
    assert x._version == before + 1


def test_saved_tensors_are_kept_as_the_scripts_own_objects():
    x = torch.ones(3, requires_grad=True)
    with recording() as rec:
        y = x * x
        z = y.exp()
    (mul, exp) = rec.records
    assert sorted(s.name for s in mul.saved) == ["other", "self"]
    assert all(s.tensor is x for s in mul.saved)
    assert [(s.name, s.node.name()) for s in exp.saved] == [("result", "ExpBackward0")]
    assert exp.saved[0].tensor is z
    z.sum().backward()  # frees them in torch; the records keep them
    assert len(mul.saved) == 2


def test_an_in_place_error_names_the_node_and_the_saved_tensor():
    m = torch.arange(5.0, requires_grad=True)
    with recording() as rec:
        n = m**2
        m.detach().zero_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            n.sum().backward()
    saved, node = rec.saved_behind(info.value)
    assert node is n.grad_fn and saved.tensor is m and saved.name == "self"
    assert info.value.node is node  # remembered on the error, as the numpy engine's has it


def test_a_custom_function_is_one_op():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    a = torch.ones(2, requires_grad=True)
    with recording() as rec:
        y = Square.apply(a)
    assert _ops(rec) == [("Square", None, False)]
    assert rec.records[0].outputs[0].grad_fn is y.grad_fn
    assert "apply" in torch.autograd.Function.__dict__  # restored, not left wrapped
    assert torch.autograd.Function.apply.__func__ is not None


def test_the_recording_is_the_active_recorder_for_make_dot():
    outer = trace.RECORDER
    with recording() as rec:
        assert trace.RECORDER is rec
    assert trace.RECORDER is outer


def test_the_api_traces_real_tensors():
    with api.trace(engine="torch") as t:
        a = torch.ones(5, requires_grad=True)
        b = a**3
        c = a.detach() ** 6
        i = (b + c).sum()
        i.backward()
    drawing = t.draw(i)
    assert repr(drawing) == "<detachviz.Drawing of i: 6 nodes, 6 edges, 1 cut>"
    [cut] = [e for e in drawing.graph.edges if e.cut]
    assert (cut.cut, drawing.graph.node(cut.source).name) == ("detach", "a")
    row = t.explain().row("a")
    assert row["status"] == "partly-cut" and "detach()" in row["reason"]
    assert row["grad"]["values"] == [3.0] * 5


def test_the_notebook_magic_runs_a_cell_on_real_torch():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    try:
        shell.run_cell("%load_ext detachviz")
        cell = "a = torch.ones(5, requires_grad=True)\nc = (a.detach() ** 6 + a).sum()\n"
        with capture_output() as out:
            result = shell.run_cell("%%detachviz --engine torch\n" + cell)
        assert result.success, result.error_in_exec
        [svg] = [o.data["image/svg+xml"] for o in out.outputs if "image/svg+xml" in o.data]
        assert "cut: detach()" in svg and "line 3" in svg
        assert isinstance(shell.user_ns["a"], torch.Tensor)  # the real one
        assert "torch" not in shell.user_ns  # the cell's binding is taken back
        with capture_output():
            bad = shell.run_cell("%%detachviz --engine jax\nx = 1\n")
        assert not bad.success
    finally:
        shell.run_cell("%reset -f")
        InteractiveShell.clear_instance()


@pytest.mark.parametrize("name", ["attached", "detached"])
@pytest.mark.parametrize("fmt", ["dot", "json"])
def test_the_golden_files_come_out_byte_for_byte(name, fmt, monkeypatch):
    from pathlib import Path

    from detachviz.pipeline import Request, build

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root / "docs" / "examples")
    data, failure = build(f"{name}.py", Request(engine="torch"), fmt)
    assert failure == ""
    assert data.decode() == (root / "tests" / "golden" / f"{name}.{fmt}").read_text()


def test_a_failing_scripts_traceback_is_the_one_python_prints(tmp_path):
    import subprocess
    import sys

    from detachviz.runner import run_script

    script = tmp_path / "s.py"
    script.write_text(
        "import torch\n"
        "m = torch.arange(5.0, requires_grad=True)\n"
        "n = m**2\n"
        "m.detach().zero_()\n"
        "n.sum().backward()\n"
    )
    result = run_script(script, record=True, quiet=True, engine="torch")
    python = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert result.error_line == 5
    # torch's own frames included, without the two that tracing adds
    assert result.error_text == python.stderr
    assert "overrides.py" not in result.error_text and "detachviz" not in result.error_text
