"""The Python API: `with detachviz.trace() as t:`, `t.draw(...)`, `t.explain(...)`.

What the API draws must be what the CLI draws for the same code as a script: the same model
(byte-equal JSON), the same grad report. Names come from the caller's namespace, lines from
the caller's source.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import detachviz
import detachviz.nn as nn
import detachviz.torch as torch
from detachviz import api, runner
from detachviz.cli import cli
from detachviz.engine import state
from detachviz.errors import RenderError, ScriptFailed, UserError
from detachviz.render.dot import drawn_graph
from detachviz.torchviz import make_dot

ROOT = Path(__file__).resolve().parents[1]
NO_ROOT = ROOT / "docs" / "examples" / "no_root.py"
EXAMPLES = [
    p
    for p in sorted((ROOT / "docs" / "examples").glob("*.py"))
    + sorted((ROOT / "docs" / "gallery").glob("*.py"))
    if p != NO_ROOT
]


def here() -> int:
    """The caller's current line."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


def traced_script(path: Path) -> api.Trace:
    """Run a script's code the way a user of the API would: in a trace, torch = detachviz."""
    ns: dict = {"__name__": "__main__", "__file__": str(path)}
    source = path.read_text(encoding="utf-8")
    with runner.compat_modules():
        ns.update(runner.prebound())
        state.reset()  # as `detachviz render` starts each script
        t = api.trace(source=str(path), namespace=ns)
        try:
            with t, state.float_errors_silenced():
                exec(compile(source, str(path), "exec"), ns)
        except Exception:  # noqa: BLE001 - recorded in the trace, as render --allow-errors
            pass
    return t


def cli_out(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    return result.stdout


# ---- the same model as the CLI ---------------------------------------------------------
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_json_equals_render_json_of_the_same_code(path: Path, capsys) -> None:
    expected = cli_out("render", str(path), "-o", "-", "-f", "json", "--allow-errors")
    drawn = traced_script(path).draw().to_json()
    capsys.readouterr()
    assert drawn == expected


def test_nothing_to_draw_is_the_clis_error(capsys) -> None:
    result = CliRunner().invoke(cli, ["render", str(NO_ROOT), "-o", "-"])
    t = traced_script(NO_ROOT)
    with pytest.raises(runner.RootError) as caught:
        t.draw()
    assert result.exit_code == 1 and str(caught.value) in result.stderr


@pytest.mark.parametrize("name", ["detached.py", "attached.py", "inplace_error.py"])
def test_explain_equals_grad_json_of_the_same_code(name: str, capsys) -> None:
    path = ROOT / "docs" / "examples" / name
    expected = json.loads(cli_out("grad", str(path), "--json"))
    got = traced_script(path).explain().to_dict()
    capsys.readouterr()
    assert got == expected


# ---- names and lines from the caller ---------------------------------------------------
def test_cut_edge_has_its_mechanism_and_the_callers_line() -> None:
    with detachviz.trace() as t:
        a = torch.ones(5, requires_grad=True)
        b = a**3
        c = a.detach() ** 6
        cut_line = here() - 1
        i = (b + c).sum()
        i.backward()
    d = t.draw(i)
    g = d.graph
    cuts = [e for e in g.edges if e.cut]
    assert [(e.cut, e.line) for e in cuts] == [("detach", cut_line)]
    assert d.lines[cut_line - 1].strip() == "c = a.detach() ** 6"  # for the html view
    assert d.namespace["c"] is c
    assert g.node(cuts[0].source).name == "a"
    assert g.node(cuts[0].target).name == "c"
    assert g.node(g.roots[0]).name == "i"
    assert {n.kind for n in g.nodes} >= {"output", "function", "leaf", "untracked"}


def test_names_come_from_locals_and_module_parameters() -> None:
    lin = nn.Linear(2, 1)
    x = torch.ones(1, 2)
    with detachviz.trace() as t:
        hidden = lin(x)
        frozen = hidden.detach()
        loss = (hidden * frozen).sum()
    names = {n.name for n in t.draw(loss).graph.nodes if n.name}
    # hidden names AddmmBackward0, the function node that made it (as `render` names it)
    assert names == {"lin.weight", "lin.bias", "hidden", "loss"}


def test_names_resolve_where_draw_is_called_and_where_the_trace_was_opened() -> None:
    def step() -> tuple[api.Trace, object]:
        w = torch.ones(3, requires_grad=True)
        with detachviz.trace() as t:
            out = (w * 2).sum()
        return t, out

    t, result = step()  # `w` and `out` were step()'s locals; `result` is ours
    names = {n.name for n in t.draw(result).graph.nodes if n.name}
    assert names == {"w", "result"}


def test_ipython_history_names_do_not_name_tensors() -> None:
    ns: dict = {"_": None, "__": None, "_i1": "", "Out": {}}
    with detachviz.trace(namespace=ns) as t:
        ns["w"] = w = torch.ones(2, requires_grad=True)
        ns["loss"] = loss = (w * 3).sum()
    ns["_"] = ns["_3"] = loss  # a cell that ended with `loss`
    assert {n.name for n in t.draw(loss).graph.nodes if n.name} == {"w", "loss"}
    assert "_" not in t.namespace and list(t.namespace) == ["w", "loss"]


def test_default_root_is_what_backward_ran_on_else_the_final_tensors() -> None:
    old = torch.ones(2, requires_grad=True) * 2  # made before the trace: never a default root
    with detachviz.trace() as t:
        p = torch.ones(2, requires_grad=True)
        q = (p * 3).sum()
        r = (p + 1).sum()
    assert [t.draw().graph.node(i).name for i in t.draw().graph.roots] == ["q", "r"]
    with detachviz.trace() as t2:
        s = (p * old).sum()
        s.backward()
        u = p * 5
    assert [t2.draw().graph.node(i).name for i in t2.draw().graph.roots] == ["s"]
    del q, r, u


def test_roots_by_name_and_a_clear_error_for_a_wrong_name() -> None:
    with detachviz.trace() as t:
        p = torch.ones(2, requires_grad=True)
        q = (p * 3).sum()
    g = t.draw(["q", p]).graph
    assert [g.node(i).name for i in g.roots] == ["q", "p"]
    with pytest.raises(runner.RootError, match="'nope' names no tensor .*tensors: p, q"):
        t.draw("nope")
    with pytest.raises(TypeError, match="not int"):
        t.draw(3)
    del q


def test_an_error_in_the_block_propagates_and_the_graph_shows_it() -> None:
    with pytest.raises(RuntimeError, match="inplace operation"):
        with detachviz.trace() as t:
            m = torch.arange(5.0, requires_grad=True)
            n = m**2
            m.detach().zero_()
            n.sum().backward()
    fail_line = here() - 1
    g = t.draw(n).graph
    assert g.error is not None and g.error["line"] == fail_line
    assert str(g.error["message"]).startswith("RuntimeError: one of the variables")
    assert [e.write for e in g.edges if e.write] == ["inplace"]


def test_make_dot_inside_a_trace_draws_cuts_and_names() -> None:
    with detachviz.trace():
        a = torch.ones(3, requires_grad=True)
        c = a.detach() * a
        dot = make_dot(c).source
    assert "cut: detach()" in dot
    assert r'label="a\n (3)"' in dot and r'label="c\n (3)"' in dot
    assert runner.CURRENT is None


# ---- the drawing ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def drawing() -> api.Drawing:
    with detachviz.trace() as t:
        a = torch.ones(5, requires_grad=True)
        i = (a**3 + a.detach() ** 6).sum()
    return t.draw(i)


@pytest.mark.parametrize(
    ("suffix", "magic"),
    [
        (".svg", b"<?xml"),
        (".png", b"\x89PNG\r\n\x1a\n"),
        (".jpg", b"\xff\xd8\xff"),
        (".jpeg", b"\xff\xd8\xff"),
        (".dot", b"digraph {"),
        (".gv", b"digraph {"),
        (".json", b'{\n  "version": 1'),
    ],
)
def test_save_picks_the_format_from_the_suffix(drawing, tmp_path, suffix, magic) -> None:
    out = drawing.save(tmp_path / f"g{suffix}")
    assert out.read_bytes().startswith(magic)
    assert [p.name for p in tmp_path.iterdir()] == [f"g{suffix}"]  # no temp file left


def test_save_with_an_explicit_format_and_the_contents(drawing, tmp_path) -> None:
    assert drawing.save(tmp_path / "g.txt", format="json").read_text() == drawing.to_json()
    assert (drawing.save(tmp_path / "g.dot")).read_text() == drawing.source
    svg = drawing.save(tmp_path / "g.svg").read_text()
    assert "cut: detach()" in svg and ">a</text>" in svg and ">i</text>" in svg


def test_pdf_is_written_or_refused_in_one_line_leaving_the_old_file(drawing, tmp_path) -> None:
    target = tmp_path / "g.pdf"
    target.write_bytes(b"old")
    try:
        drawing.save(target)
    except RenderError as e:  # a renderer without pdf
        assert "\n" not in str(e) and "pdf" in str(e)
        assert target.read_bytes() == b"old"
    else:
        assert target.read_bytes().startswith(b"%PDF")


def test_bad_requests_are_clear_errors(drawing, tmp_path) -> None:
    with pytest.raises(UserError, match="give it a suffix"):
        drawing.save(tmp_path / "g")
    with pytest.raises(Exception, match="unknown format 'bmp'"):
        drawing.save(tmp_path / "g.bmp")
    with detachviz.trace() as t:
        y = torch.ones(1, requires_grad=True) * 2
    with pytest.raises(UserError, match="unknown rankdir 'XX'"):
        t.draw(y, rankdir="XX")
    with pytest.raises(TypeError):
        t.draw(y, colour="red")  # type: ignore[call-arg]


def test_options_reach_the_drawing() -> None:
    with detachviz.trace() as t:
        a = torch.ones(2, requires_grad=True)
        b = torch.ones(2, requires_grad=True)
        y = (a * b).sum()
    assert repr(t.draw(y)) == "<detachviz.Drawing of y: 5 nodes, 4 edges, 0 cuts>"
    assert "rankdir=LR" in t.draw(y, rankdir="lr").source
    saved = t.draw(y, show_saved=True).graph
    assert [n.label for n in saved.nodes if n.kind == "saved"] == ["other", "self"]
    assert "legend" in t.draw(y, legend=True).source.lower()


def test_mimebundle_is_svg_with_cut_and_names(drawing) -> None:
    bundle = drawing._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/plain"}
    assert "cut: detach()" in bundle["image/svg+xml"] and ">a</text>" in bundle["image/svg+xml"]
    assert bundle["text/plain"] == "<detachviz.Drawing of i: 6 nodes, 6 edges, 1 cut>"
    assert set(drawing._repr_mimebundle_(exclude=["text/plain"])) == {"image/svg+xml"}


def html_data(page: str) -> dict:
    """The data block of an html view: its nodes' tooltip rows, its edges, its title."""
    found = re.search(r'<script type="application/json" class="dv-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_mimebundle_offers_the_embeddable_html_view_when_asked(drawing) -> None:
    bundle = drawing._repr_mimebundle_(include=["text/html"])
    assert set(bundle) == {"text/html"}
    view = bundle["text/html"]
    assert view.startswith("<div") and "<!DOCTYPE" not in view and "<svg" in view
    assert view == drawing.to_html(page=False)
    leaf = {n["name"]: dict(n["rows"]) for n in html_data(view)["nodes"].values()}["a"]
    assert leaf["dtype"] == "torch.float32" and leaf["grad"] == "None"  # no backward() ran
    assert "text/html" not in drawing._repr_mimebundle_()  # only when the front end asks
    assert set(drawing._repr_mimebundle_(include=["text/html"], exclude=["text/html"])) == set()


def test_public_names_load_lazily_from_the_package() -> None:
    assert detachviz.trace is api.trace and detachviz.explain is api.explain
    assert detachviz.Drawing is api.Drawing
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        detachviz.nope  # noqa: B018


# ---- explain ---------------------------------------------------------------------------
def test_explain_rows_say_why_a_grad_is_none() -> None:
    with detachviz.trace() as t:
        w = torch.ones(2, requires_grad=True)
        v = torch.ones(2, requires_grad=True)
        cut_at = here() + 1
        loss = (w * v.detach()).sum()
        loss.backward()
    e = detachviz.explain(loss, trace=t)
    assert e.root == "loss"
    assert e.row("w")["status"] == "ok" and e.row("w")["grad"]["values"] == [1.0, 1.0]
    assert e.row("v")["status"] == "cut" and e.row("v")["line"] == cut_at
    assert "detach()" in e.row("v")["reason"]
    assert detachviz.explain().to_dict() == e.to_dict()  # the last trace


def test_explain_calls_backward_when_the_code_did_not() -> None:
    with detachviz.trace() as t:
        w = torch.ones(3, requires_grad=True)
        y = (w * 2).sum()
    e = t.explain(y)
    assert e.to_dict()["backward_called_by"] == "detachviz"
    assert e.row("w")["grad"]["values"] == [2.0, 2.0, 2.0]


def test_explain_of_an_unnamed_tensor() -> None:
    with detachviz.trace() as t:
        w = torch.ones(2, requires_grad=True)
    e = t.explain((w * 4).sum())
    assert e.row("w")["grad"]["values"] == [4.0, 4.0]


def test_explain_reprs_hold_the_table() -> None:
    from rich.console import Console

    with detachviz.trace() as t:
        a = torch.ones(5, requires_grad=True)
        i = (a**3 + a.detach() ** 6).sum()
        i.backward()
    e = t.explain()
    text = str(e)
    assert text.splitlines()[0] == "Gradients of i (backward called by the code)."
    assert text.splitlines()[1].split() == ["tensor", "shape", "grad", "status", "why"]
    assert "a       (5)    [3, 3, 3, 3, 3]  partly-cut" in text
    html = e._repr_html_()
    assert html.count("<tr>") == 1 + len(e.rows) == 2 and "<code>[3, 3, 3, 3, 3]</code>" in html
    assert "partly-cut</span>" in html
    console = Console(record=True, width=300)
    console.print(e)
    assert "[3, 3, 3, 3, 3]" in console.export_text()


def test_explain_needs_a_trace() -> None:
    t = api.Trace.__new__(api.Trace)
    t._run = None
    with pytest.raises(RuntimeError, match="with detachviz.trace"):
        t.explain()


def test_explain_rows_are_the_traces_own_variables() -> None:
    ns: dict = {"before": torch.ones(2, requires_grad=True), "kept": torch.ones(2)}
    ns["lin"] = nn.Linear(2, 1)
    with detachviz.trace(namespace=ns) as t:
        ns["w"] = w = torch.ones(2, requires_grad=True)
        ns["unused"] = torch.zeros(1, requires_grad=True)
        ns["loss"] = loss = (w * ns["kept"]).sum()
        loss.backward()
    names = [r["name"] for r in t.explain(loss).rows]
    assert names == ["kept", "w", "unused"]  # not `before`, nor `lin`: earlier, and not used
    assert t.explain(loss).row("unused")["status"] == "unused"


def test_the_api_reference_examples_are_real_output(tmp_path, monkeypatch) -> None:
    """docs/api.md is a doctest: its outputs are what the API prints now."""
    import doctest

    monkeypatch.chdir(tmp_path)  # its example saves a file
    result = doctest.testfile(
        str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert result.attempted >= 15 and result.failed == 0
    assert (tmp_path / "detached.svg").read_bytes().startswith(b"<?xml")


def test_save_html_is_the_page_render_writes_for_the_same_code(script, tmp_path) -> None:
    path = script(
        """
        a = torch.ones(5, requires_grad=True)
        b = a**3
        c = a.detach() ** 6
        i = (b + c).sum()
        i.backward()
        """,
        "seed.py",
    )
    saved = traced_script(path).draw().save(tmp_path / "api.html")
    page = saved.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # The same page, byte for byte: title, code lines, and the details of each tensor
    assert page == cli_out("render", str(path), "-o", "-", "-f", "html")
    rows = {n["name"]: dict(n["rows"]) for n in html_data(page)["nodes"].values() if n["name"]}
    assert rows["a"]["dtype"] == "torch.float32"
    assert rows["a"]["grad"] == "[3.0, 3.0, 3.0, 3.0, 3.0]"
    assert rows["c"]["line"] == "3: c = a.detach() ** 6"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["api.html", "seed.py"]  # no temp file


def test_a_script_using_the_api_renders_the_same_under_the_cli(script) -> None:
    """`detachviz render` of a script that opens a trace: both see every op."""
    body = (
        "    a = torch.ones(3, requires_grad=True)\n"
        "    c = a.detach() * a\n"
        "    loss = c.sum()\n"
        "    loss.backward()\n"
    )
    plain = script("import detachviz\nif True:\n" + body, "p.py")
    traced = script(
        "import detachviz\nwith detachviz.trace() as t:\n" + body + "drawn = t.draw().to_json()\n",
        "t.py",
    )
    expected = cli_out("render", str(plain), "-o", "-", "-f", "json")
    assert cli_out("render", str(traced), "-o", "-", "-f", "json") == expected
    assert '"cut": "detach", "line": 4' in expected
    result = runner.run_script(traced, record=True, quiet=True)
    assert result.namespace["drawn"] == expected


def _chain_trace():
    with detachviz.trace() as t:
        w = torch.ones(2, requires_grad=True)
        h = w * 1.0
        for _ in range(5):
            h = h * w
        loss = h.sum()
    return t, loss


def test_expand_nodes_size_and_dpi_are_the_clis(tmp_path) -> None:
    t, loss = _chain_trace()
    collapsed = t.draw(loss)
    assert any(n.label == "MulBackward0" for n in collapsed.graph.nodes)
    assert "×6" in collapsed.source  # the six multiplications are one box
    drawn = drawn_graph(collapsed.graph)
    [line] = {n.line for n in drawn.graph.nodes if drawn.runs.get(n.id, 1) > 1}
    for name in ("MulBackward0", "h", ["h"], line):
        full = t.draw(loss, expand_nodes=name)
        assert "×6" not in full.source and full.source.count("MulBackward0") == 6, name
    # size: the CLI's Graphviz string, one number, or a pair; dpi: png pixels per inch
    for size in ("3,2", (3, 2)):
        assert 'size="3,2"' in t.draw(loss, size=size).source
    assert "size=3" in t.draw(loss, size=3).source
    small, big = (t.draw(loss, dpi=d).pipe("png") for d in (96, 288))
    width = [int.from_bytes(png[16:20], "big") for png in (small, big)]
    assert width[1] == pytest.approx(3 * width[0], rel=0.02)


def test_bad_expand_node_size_and_dpi_are_the_clis_one_line_errors(tmp_path) -> None:
    t, loss = _chain_trace()
    script = tmp_path / "chain.py"
    script.write_text(
        "import torch\nw = torch.ones(2, requires_grad=True)\nh = w * 1.0\n"
        "for _ in range(5):\n    h = h * w\nloss = h.sum()\n"
    )
    cases = [
        ({"expand_nodes": "nope"}, ["--expand-node", "nope"], ScriptFailed),
        ({"size": "big"}, ["--size", "big"], UserError),
        ({"size": (3, -1)}, ["--size", "3,-1"], UserError),
        ({"expand_nodes": " "}, ["--expand-node", " "], UserError),
    ]
    for kwargs, flags, error in cases:
        with pytest.raises(error) as raised:
            t.draw(loss, **kwargs)
        cli_run = CliRunner().invoke(cli, ["render", str(script), "-o", "-", *flags])
        assert cli_run.exit_code != 0
        # the same words (the lines differ: the script's own against this file's)
        same = re.sub(r"line \d+", "line N", str(raised.value))
        assert same in re.sub(r"line \d+", "line N", cli_run.output), (kwargs, cli_run.output)
    with pytest.raises(UserError, match=r"^bad dpi 0: give pixels per inch from 1 to 2400$"):
        t.draw(loss, dpi=0)
    with pytest.raises(UserError, match="bad dpi 'x'"):
        t.draw(loss, dpi="x")  # type: ignore[arg-type]
