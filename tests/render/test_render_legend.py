"""The legend lists what the drawing contains: which entries a real script's picture gets."""

from __future__ import annotations

import html
import textwrap

import pytest
import render_samples as samples

from detachviz import render
from detachviz.graph import vocab
from detachviz.graph.model import Edge, Graph, Node
from detachviz.pipeline import Request, build
from detachviz.render import theme, to_digraph
from detachviz.render.dot import drawn_graph, legend_entries
from detachviz.render.options import DrawOptions

SCRIPTS = {
    "plain": """
        import torch
        w = torch.ones(3, requires_grad=True)
        y = (w * 2).sum()
    """,
    "detached": """
        import torch
        a = torch.ones(3, requires_grad=True)
        w = torch.ones(3, requires_grad=True)
        z = (a * 2).pow(2).detach()
        y = (z * w).sum()
    """,
    "data_write": """
        import torch
        x = torch.ones(1, requires_grad=True)
        y = x * x
        x.data *= 100
        y.backward()
    """,
    "inplace_error": """
        import torch
        m = torch.arange(5.0, requires_grad=True)
        n = m**2
        o = m.detach()
        o.zero_()
        n.sum().backward()
    """,
    "long_chain": """
        import torch
        w = torch.ones(2, requires_grad=True)
        x = torch.ones(2, requires_grad=True)
        for _ in range(50):
            x = x * w
        y = x.sum()
    """,
}


def legend_dot(tmp_path, name: str, **options: bool) -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(SCRIPTS[name]), encoding="utf-8")
    request = Request(allow_errors=True, draw=DrawOptions(legend=True, **options))
    return build(str(script), request, "dot")[0].decode("utf-8")


def entries_in(source: str) -> list[str]:
    """The legend's sample nodes, in the order the DOT lists them (edge samples by name)."""
    legend = source[source.index("subgraph cluster_legend") :]
    ids = [ln.split()[0] for ln in legend.splitlines() if "[label=" in ln and "->" not in ln]
    samples = [i for i in ids if not i.endswith(("_to", "_label"))]  # an edge's end, its text
    names = [i.removeprefix("legend_").removesuffix("_from") for i in samples]
    return [n.replace("cut_", "cut:", 1).replace("write_", "write:", 1) for n in names]


@pytest.mark.parametrize(
    ("name", "options", "entries"),
    [
        ("plain", {}, ["output", "function", "leaf"]),
        ("plain", {"show_saved": True}, ["output", "function", "leaf", "saved"]),
        ("detached", {}, ["output", "function", "leaf", "untracked", "cut:detach"]),
        ("data_write", {}, ["output", "function", "leaf", "untracked", "cut:data", "write:data"]),
        (
            "inplace_error",
            {},
            ["output", "function", "leaf", "untracked", "cut:detach", "write:inplace", "failure"],
        ),
        ("long_chain", {}, ["output", "function", "leaf", "collapsed"]),
        ("long_chain", {"expand": True}, ["output", "function", "leaf"]),
    ],
)
def test_legend_lists_what_the_script_drew(tmp_path, name, options, entries):
    source = legend_dot(tmp_path, name, **options)
    assert entries_in(source) == entries


def test_the_legend_samples_use_the_drawings_styles(tmp_path):
    source = legend_dot(tmp_path, "inplace_error")
    legend = source[source.index("subgraph cluster_legend") :]
    # the sample is drawn as the drawing's cut: its label a node splitting the red edge
    assert 'legend_cut_detach_label [label="cut: detach()\\nline N" fontcolor=red' in legend
    assert "legend_cut_detach_from -> legend_cut_detach_label [arrowhead=none color=red" in legend
    assert "legend_cut_detach_label -> legend_cut_detach_to [color=red" in legend
    assert "in-place write to a saved tensor:\\nbackward will raise\\nline N" in legend
    assert 'legend_failure [label="script failed here" color=red' in legend
    assert "legend_saved" not in legend and "cut: .data" not in legend


def test_collapsed_entry_is_a_double_bordered_box(tmp_path):
    legend = legend_dot(tmp_path, "long_chain").split("subgraph cluster_legend")[1]
    line = next(ln for ln in legend.splitlines() if ln.strip().startswith("legend_collapsed "))
    assert "peripheries=2" in line and "×N" in line


def test_entries_follow_the_vocabulary_order_not_the_models():
    g = samples.all_cuts()
    g.edges.reverse()
    g.nodes.reverse()
    assert legend_entries(drawn_graph(g)) == [
        "output",
        "function",
        "leaf",
        "untracked",
        "cut:detach",
        "cut:detach_",
        "cut:data",
        "cut:no_grad",
        "cut:copy",
    ]


def test_no_legend_without_the_option():
    assert "cluster_legend" not in to_digraph(samples.detach()).source


def every_element(without: str = "") -> Graph:
    """A model with one of everything a drawing can show (every node kind, cut mechanism and
    write, a collapsed run, an elided chain, the failure marker), less the elements of the
    entry `without`."""
    g = samples.mul_chain(6)  # n1..n6: MulBackward0 ×6 (collapsed); n7 = w, n8 = x
    add = [
        Node("s", vocab.SAVED, "self", shape=(1,)),
        Node("b", vocab.BASE, "", shape=(2,), line=1),
        Node("o", vocab.OUTPUT, "row", name="row", shape=(1,), line=2),
        Node("u", vocab.UNTRACKED, "exp", line=2),
        Node("f", vocab.FUNCTION, "AddBackward0", line=2),  # where the cuts and writes go
    ]
    g.nodes += add
    g.edges += [Edge("f", "n0"), Edge("n8", "f"), Edge("s", "f"), Edge("b", "o")]
    if without != "elided":  # 20 different ops in a row, drawn as one "… N ops …" box
        chain = [Node(f"e{i}", vocab.FUNCTION, f"Op{i}Backward0", line=6) for i in range(20)]
        g.nodes += chain
        g.edges += [Edge(a.id, b.id) for a, b in zip(chain, chain[1:])] + [Edge("e19", "f")]
    for c in vocab.CUT_NAMES:
        if f"cut:{c}" != without:
            g.edges.append(Edge("u", "f", cut=c, line=3))
    for w in vocab.WRITE_NAMES:
        if f"write:{w}" != without:
            g.edges.append(Edge("u", "f", write=w, line=4))
    if without != "failure":
        g.error = {"message": "RuntimeError: boom", "line": 5}
    g.nodes = [n for n in g.nodes if n.kind != without]
    ends = {n.id for n in g.nodes}
    g.edges = [e for e in g.edges if e.source in ends and e.target in ends]
    g.roots = [r for r in ("n0", "o") if r in ends] or ["n1", "f"]
    return g


def test_a_drawing_with_everything_lists_every_row_of_the_table():
    g = every_element()
    shown = DrawOptions(show_saved=True)
    assert legend_entries(drawn_graph(g, shown)) == [row.entry for row in theme.LEGEND_ROWS]
    svg = render.draw(g, "svg", DrawOptions(legend=True, show_saved=True)).decode()
    legend = svg[svg.index("<title>cluster_legend</title>") :].replace("&#45;", "-")
    for row in theme.LEGEND_ROWS:  # each sample is drawn, with its words
        for line in row.text.split("\n"):
            assert f">{html.escape(line, quote=False)}</text>" in legend, row.entry


# (without backward functions or untracked boxes there would be no cut to draw either)
CARRIERS = (vocab.FUNCTION, vocab.UNTRACKED)


@pytest.mark.parametrize("entry", [r.entry for r in theme.LEGEND_ROWS if r.entry not in CARRIERS])
def test_an_entry_is_listed_only_when_the_drawing_has_it(entry):
    if entry == "collapsed":  # expanded: the run is drawn in full (and so is the chain)
        options = DrawOptions(expand=True, show_saved=True)
        entries = legend_entries(drawn_graph(every_element(without="elided"), options))
        assert entries == [r.entry for r in theme.LEGEND_ROWS if r.entry not in (entry, "elided")]
        return
    else:
        options = DrawOptions(show_saved=True)
        entries = legend_entries(drawn_graph(every_element(without=entry), options))
    assert entries == [r.entry for r in theme.LEGEND_ROWS if r.entry != entry]


def test_saved_tensors_are_listed_only_with_show_saved():
    g = every_element()
    assert "saved" not in legend_entries(drawn_graph(g))
    assert "saved" in legend_entries(drawn_graph(g, DrawOptions(show_saved=True)))
