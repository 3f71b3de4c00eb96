"""Drawing a graph model: DOT, theme, collapse, layout backends (never the engine or numpy).

`draw(graph, fmt, options)` is the whole pipeline: model -> DOT text (`dot.build_dot`) ->
bytes from the layout backend (`backend.render_source`); `json` is the model itself and
`html` the interactive page around the svg (`html.render_html`).
`to_digraph` stops after the first step and returns the same statements as a
torchviz-compatible `Digraph` that users can render, save or restyle themselves (restyling
makes it a real `graphviz.Digraph`, importing the `graphviz` package then: drawing, saving
and rendering do not need it). The submodules load on first use, so reading the tables in
`render.options` imports none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from detachviz.errors import RenderError
from detachviz.render.options import DEFAULT_DRAW, DEFAULT_VIEW, DrawOptions, HtmlView, find_format

if TYPE_CHECKING:
    from detachviz.graph.model import Graph
    from detachviz.render.digraph import Digraph

__all__ = ["Digraph", "DrawOptions", "HtmlView", "RenderError", "draw", "to_digraph"]


def to_digraph(graph: Graph, options: DrawOptions = DEFAULT_DRAW) -> Digraph:
    """The drawing of `graph` as torchviz's `Digraph`, rendered by `options.renderer`."""
    from detachviz.render.digraph import Digraph
    from detachviz.render.dot import build_dot

    drawing = build_dot(graph, options)
    return Digraph(
        graph_attr=drawing.graph_attr,
        node_attr=drawing.node_attr,
        body=drawing.body,
        program=options.renderer,
    )


def draw(
    graph: Graph, fmt: str, options: DrawOptions = DEFAULT_DRAW, view: HtmlView = DEFAULT_VIEW
) -> bytes:
    """Bytes of `graph` as `fmt`: a name or alias from `render.options.FORMATS`; `view` is
    what the html format shows besides the drawing.

    Raises RenderError (a one-line message) when the renderer is missing, cannot write
    `fmt`, or fails.
    """
    from detachviz.render import backend

    found = find_format(fmt)
    if found is not None and found.name == "json":
        # Always the full model: collapsing is for images. A lone surrogate in a name cannot
        # be UTF-8: it is written as the JSON escape \udcXX instead.
        return graph.to_json().encode("utf-8", "backslashreplace")
    if found is not None and found.name == "html":
        from detachviz.render.html import render_html

        page = render_html(
            graph,
            options,
            title=view.title,
            source=view.source,
            details=view.details,
            page=view.page,
        )
        return page.encode("utf-8", "backslashreplace")
    from detachviz.render.dot import build_dot
    from detachviz.render.theme import SMALLEST_FONT_PT

    source = build_dot(graph, options).source
    return backend.render_source(
        source, fmt, renderer=options.renderer, dpi=options.dpi, font_pt=SMALLEST_FONT_PT
    )


def __getattr__(name: str) -> Any:
    if name == "Digraph":  # `from detachviz.render import Digraph`
        from detachviz.render.digraph import Digraph

        return Digraph
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
