"""docs/images/legend.svg is drawn by the renderer and kept current (UPDATE_GOLDEN=1 rewrites)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import render_samples as samples

from detachviz.graph.model import Edge, Graph, Node
from detachviz.render import draw, theme
from detachviz.render.options import DrawOptions

DOCS = Path(__file__).resolve().parents[2] / "docs"


def legend_example() -> Graph:
    """One picture with every node kind, every edge type and the failure marker."""
    g = samples.detach()
    g.nodes.append(Node("n7", "saved", "self", shape=(3,)))
    g.edges.append(Edge("n7", "n2"))
    return g


@pytest.mark.parametrize(
    ("name", "make", "options"),
    [
        ("legend.svg", legend_example, {"legend": True, "show_saved": True}),
        ("collapsed_rnn.svg", lambda: samples.rnn(1000), {}),
    ],
)
def test_doc_image_is_current(name, make, options):
    svg = draw(make(), "svg", DrawOptions(**options))
    path = DOCS / "images" / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(svg)
    assert path.read_bytes() == svg
    assert f"images/{name}" in (DOCS / "legend.md").read_text(encoding="utf-8")


def test_legend_page_names_every_colour():
    page = (DOCS / "legend.md").read_text(encoding="utf-8")
    for style in theme.NODE_STYLE.values():
        assert style["fillcolor"] in page
    for text in theme.CUT_TEXT.values():
        assert f"`{text}`" in page
