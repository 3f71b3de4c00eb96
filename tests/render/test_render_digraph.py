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


def test_is_a_graphviz_digraph():
    assert isinstance(to_digraph(samples.simple()), graphviz.Digraph)


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
