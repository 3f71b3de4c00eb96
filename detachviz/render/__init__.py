"""DOT building, theme and layout backends (never imports the engine or numpy).

`draw(graph, fmt=...)` is the whole pipeline: model -> DOT (`dot.build_digraph`) -> bytes
from the layout program (`backend.render_source`). `to_digraph` stops after the first step
and returns a torchviz-compatible `Digraph` that users can restyle and render themselves.
"""

from __future__ import annotations

from detachviz.graph.model import Graph
from detachviz.render.backend import RenderError
from detachviz.render.digraph import Digraph
from detachviz.render.dot import build_digraph

__all__ = ["Digraph", "RenderError", "draw", "to_digraph"]


def to_digraph(
    graph: Graph,
    *,
    rankdir: str = "TB",
    legend: bool = False,
    show_attrs: bool = False,
    show_saved: bool = False,
    expand: bool = False,
    renderer: str | None = None,
) -> Digraph:
    """The drawing of `graph` as a `graphviz.Digraph` subclass rendered by `renderer`."""
    return build_digraph(
        graph,
        rankdir=rankdir,
        legend=legend,
        show_attrs=show_attrs,
        show_saved=show_saved,
        expand=expand,
        program=renderer,
    )


def draw(
    graph: Graph,
    *,
    fmt: str,
    rankdir: str = "TB",
    legend: bool = False,
    show_attrs: bool = False,
    show_saved: bool = False,
    expand: bool = False,
    renderer: str | None = None,
) -> bytes:
    """Bytes of `graph` drawn as fmt (svg, png, jpg, jpeg, pdf with renderer="dot", dot).

    Raises RenderError (one-line message) when the renderer is missing, cannot write `fmt`,
    or fails; ValueError for a bad rankdir or node kind.
    """
    dot = to_digraph(
        graph,
        rankdir=rankdir,
        legend=legend,
        show_attrs=show_attrs,
        show_saved=show_saved,
        expand=expand,
        renderer=renderer,
    )
    return dot.pipe(format=fmt)  # type: ignore[return-value]
