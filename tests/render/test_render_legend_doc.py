"""docs/legend.md's images are drawn by detachviz and kept current (UPDATE_GOLDEN=1 rewrites)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import render_samples as samples

from detachviz.graph.model import Edge, Graph, Node
from detachviz.pipeline import Request, build
from detachviz.render import draw, theme
from detachviz.render.options import DrawOptions

DOCS = Path(__file__).resolve().parents[2] / "docs"
GALLERY = DOCS / "gallery"


def legend_example() -> Graph:
    """One picture with every node kind but `base` (docs/images/view_root.svg has it) and a
    cut: its legend lists those five kinds."""
    g = samples.detach()
    g.nodes.append(Node("n7", "saved", "self", shape=(3,)))
    g.edges.append(Edge("n7", "n2"))
    return g


def model_svg(make, **options: bool) -> bytes:
    return draw(make(), "svg", DrawOptions(**options))


def script_svg(script: str, **options: bool) -> bytes:
    """The picture `detachviz render -f svg` draws for a gallery script."""
    request = Request(allow_errors=True, draw=DrawOptions(**options))
    return build(str(GALLERY / script), request, "svg")[0]


def example_svg(script: str, **options: bool) -> bytes:
    """The picture `detachviz render -f svg` draws for a docs/examples script."""
    request = Request(draw=DrawOptions(**options))
    return build(str(DOCS / "examples" / script), request, "svg")[0]


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("legend.svg", lambda: model_svg(legend_example, legend=True, show_saved=True)),
        ("legend_data_write.svg", lambda: script_svg("data_write.py", legend=True)),
        ("legend_inplace_error.svg", lambda: script_svg("detach_inplace_error.py", legend=True)),
        ("legend_collapsed.svg", lambda: model_svg(lambda: samples.mul_chain(10), legend=True)),
        ("collapsed_rnn.svg", lambda: model_svg(lambda: samples.rnn(1000))),
        ("saved_relu.svg", lambda: example_svg("saved_relu.py", show_saved=True, legend=True)),
        ("view_root.svg", lambda: example_svg("view_root.py", show_saved=True, legend=True)),
    ],
)
def test_doc_image_is_current(name, make):
    svg = make()
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


def test_legend_page_shows_every_legend_text():
    page = (DOCS / "legend.md").read_text(encoding="utf-8")
    for text in [*theme.LEGEND_KIND_TEXT.values(), theme.LEGEND_COLLAPSED_TEXT]:
        assert f"`{text.replace(chr(10), ' ')}`" in page
