"""The torchviz-compatible Digraph: render/pipe/notebook display through graphviz-pure."""

from __future__ import annotations

import graphviz
import pytest
import render_samples as samples

from detachviz.render import Digraph, to_digraph
from detachviz.render.options import DrawOptions


@pytest.fixture
def no_system_graphviz(monkeypatch):
    """Only graphviz-pure (found beside sys.executable) is reachable."""
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("DETACHVIZ_RENDERER", raising=False)


def test_writes_what_a_graphviz_digraph_writes(tmp_path):
    """The drawing's source, str() and saved file are a graphviz.Digraph's of the same
    statements, without importing graphviz (it stays a plain drawing until more is used)."""
    dot = to_digraph(samples.detach())
    theirs = graphviz.Digraph(graph_attr=dot.graph_attr, node_attr=dot.node_attr, body=dot.body)
    assert not isinstance(dot, graphviz.Digraph)
    assert dot.source == str(dot) == theirs.source
    assert (dot.filename, dot.directory, dot.format) == (theirs.filename, "", theirs.format)
    ours_at, theirs_at = (
        dot.save("g", directory=tmp_path / "a"),
        theirs.save("g", directory=tmp_path / "b"),
    )
    assert (ours_at, theirs_at) == (str(tmp_path / "a" / "g"), str(tmp_path / "b" / "g"))
    assert (tmp_path / "a" / "g").read_bytes() == (tmp_path / "b" / "g").read_bytes()
    named = Digraph("my graph", graph_attr={"rankdir": "LR"}, body=["\ta -> b\n"])
    twin = graphviz.Digraph("my graph", graph_attr={"rankdir": "LR"}, body=["\ta -> b\n"])
    assert (named.source, named.filename) == (twin.source, twin.filename)


def test_becomes_a_graphviz_digraph_for_the_rest_of_its_api():
    """attr(), edge_attr, subgraph(), copy(), ...: graphviz's own, on the same statements
    (the dicts and body a caller holds stay the drawing's), still rendered by our backend."""
    dot = to_digraph(samples.simple(), DrawOptions(renderer="dot"))
    dot.format = "svg"
    node_attr, body, before = dot.node_attr, dot.body, dot.source
    dot.edge_attr["color"] = "red"
    assert isinstance(dot, graphviz.Digraph) and dot.program == "dot" and dot.format == "svg"
    assert dot.node_attr is node_attr and dot.body is body
    attrs = {"graph_attr": dot.graph_attr, "node_attr": node_attr, "body": body}
    assert before == graphviz.Digraph(**attrs).source
    assert dot.source == graphviz.Digraph(**attrs, edge_attr={"color": "red"}).source
    with dot.subgraph(name="cluster_x") as sub:
        sub.node("extra")
    assert "subgraph cluster_x" in dot.source and dot.copy().source == dot.source
    assert Digraph(comment="made by hand").source.startswith("// made by hand\ndigraph {")


def test_render_writes_source_and_image(tmp_path, monkeypatch, no_system_graphviz):
    monkeypatch.chdir(tmp_path)
    dot = to_digraph(samples.detach())
    assert dot.render("attached", format="jpg") == "attached.jpg"
    assert (tmp_path / "attached").read_text(encoding="utf-8") == dot.source
    assert (tmp_path / "attached.jpg").read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG


def test_render_cleanup_and_directory(tmp_path):
    dot = to_digraph(samples.simple())
    out = dot.render("g", directory=tmp_path, format="png", cleanup=True)
    assert out == str(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "g").exists()


def test_render_outfile_gives_format(tmp_path):
    out = to_digraph(samples.simple()).render(outfile=tmp_path / "pic.svg")
    assert out == str(tmp_path / "pic.svg")
    assert (tmp_path / "pic.svg").read_bytes().startswith(b"<?xml")
    assert (tmp_path / "pic.gv").exists()


def test_render_default_filename(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert to_digraph(samples.simple()).render(format="svg") == "Digraph.gv.svg"


def test_pipe_bytes_and_str(no_system_graphviz):
    dot = to_digraph(samples.simple())
    assert dot.pipe(format="png")[:4] == b"\x89PNG"
    text = dot.pipe(format="svg", encoding="utf-8")
    assert isinstance(text, str) and "MulBackward0" in text


def test_notebook_display(no_system_graphviz):
    bundle = to_digraph(samples.simple())._repr_mimebundle_()
    assert list(bundle) == ["image/svg+xml"] and "MulBackward0" in bundle["image/svg+xml"]
    assert to_digraph(samples.simple())._repr_image_png()[:4] == b"\x89PNG"


def test_restyle_like_a_digraph():
    dot = to_digraph(samples.simple())
    dot.attr(rankdir="LR", bgcolor="lightyellow")
    dot.node_attr["fontsize"] = "14"
    assert "bgcolor=lightyellow" in dot.source and "fontsize=14" in dot.source
    assert 'fill="lightyellow"' in dot.pipe(format="svg", encoding="utf-8")


def test_copy_keeps_the_program():
    dot = to_digraph(samples.simple(), DrawOptions(renderer="dot"))
    assert dot.copy().program == "dot"
    assert dot.copy().source == dot.source


def test_plain_construction_works_like_graphviz(no_system_graphviz):
    dot = Digraph(comment="hand made")
    dot.edge("a", "b")
    assert dot.source.startswith("// hand made\ndigraph {")
    assert "<title>a&#45;&gt;b</title>" in dot.pipe(format="svg", encoding="utf-8")
